//! A device's word for its owner. Each successful sign-in gives back a device token: a
//! random nonce and a hash of it keyed under the project's secret to the person and
//! their password hash. Presented at a later sign-in of the same person, it tells the
//! owner apart from a guesser behind the same address (a lab's NAT, a proxy not named
//! with `--trusted-proxy`), whose five wrong passwords held the name there for the owner
//! too (hostile pass of session 34). Wrong passwords with any of a person's tokens count
//! against one budget of that person's (so tokens gathered by signing in again and again
//! buy no more checks), and once it is spent a token counts as none. A new password ends
//! every token of the person, as it ends their sessions.

use super::{free_at, random_bytes, sign_in_name, SignInPolicy};
use crate::{Project, Result};
use factdesk_store::sign_in;

/// A new device token for `annotator_id`, whose password hash is `password_hash`.
pub(super) fn issue(secret: &[u8], annotator_id: i64, password_hash: &str) -> Result<String> {
    let nonce: String = random_bytes::<16>()?
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mac = mac(secret, annotator_id, password_hash, &nonce);
    Ok(format!("{nonce}.{mac}"))
}

/// Whether `token` is one [`issue`] gave `annotator_id` under their current
/// `password_hash`.
pub(super) fn vouches(secret: &[u8], annotator_id: i64, password_hash: &str, token: &str) -> bool {
    let Some((nonce, given)) = token.split_once('.') else {
        return false;
    };
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex(nonce, 32) || !hex(given, 32) {
        return false;
    }
    let expected = mac(secret, annotator_id, password_hash, nonce);
    // Compared in full whatever differs first: the time taken tells nothing of the mac.
    let same = expected
        .bytes()
        .zip(given.bytes())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b.to_ascii_lowercase()));
    same == 0
}

/// What failed sign-ins with any of `annotator_id`'s tokens are counted under.
pub(super) fn subject(annotator_id: i64) -> String {
    format!("device:{annotator_id}")
}

fn mac(secret: &[u8], annotator_id: i64, password_hash: &str, nonce: &str) -> String {
    let mut key = [0u8; 32];
    for (k, s) in key.iter_mut().zip(secret) {
        *k = *s;
    }
    let message = format!("device:{annotator_id}:{nonce}:{password_hash}");
    blake3::keyed_hash(&key, message.as_bytes()).to_hex()[..32].to_string()
}

impl Project {
    /// Whether `device` is a token an earlier sign-in gave `name`'s person under their
    /// current password, and their tokens' failures leave it room: a front end then
    /// treats the sign-in as one from a known address. A spent token counts as none, so
    /// it does not follow its browser to another network.
    pub fn device_vouches(
        &self,
        name: &str,
        device: Option<&str>,
        policy: &SignInPolicy,
    ) -> Result<bool> {
        let offered: Vec<&str> = device.into_iter().collect();
        Ok(self.vouching_device(name, &offered, policy)?.is_some())
    }

    /// The first of `offered` that [`Project::device_vouches`] for `name`: the person
    /// and the secret are read once, so a request carrying many tokens (cookies planted
    /// beside the owner's) costs a hash each.
    pub fn vouching_device<'t>(
        &self,
        name: &str,
        offered: &[&'t str],
        policy: &SignInPolicy,
    ) -> Result<Option<&'t str>> {
        let name = sign_in_name(name)?;
        let Some((token, subject)) = self.device_subject(name, offered)? else {
            return Ok(None);
        };
        let now = self.clock.now_ms();
        let conn = self.store.read();
        let times = sign_in::failure_times(conn, &subject, now - policy.window_ms)?;
        let spent = free_at(
            &times,
            policy.failures_per_name_and_address,
            policy.window_ms,
        );
        Ok(spent.is_none().then_some(token))
    }

    /// The first of `offered` that vouches for `name`, with what failures with it are
    /// counted under (its person's tokens' budget).
    pub(super) fn device_subject<'t>(
        &self,
        name: &str,
        offered: &[&'t str],
    ) -> Result<Option<(&'t str, String)>> {
        if offered.is_empty() {
            return Ok(None);
        }
        let conn = self.store.read();
        let Some(person) = sign_in::by_name(conn, name)? else {
            return Ok(None);
        };
        let Some(hash) = person.password_hash.as_deref().filter(|_| !person.disabled) else {
            return Ok(None);
        };
        let secret = factdesk_store::tx::secret(conn)?;
        let id = person.annotator_id;
        Ok((offered.iter())
            .find(|token| vouches(&secret, id, hash, token))
            .map(|token| (*token, subject(id))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_vouches_for_its_person_and_password_only() {
        let secret = [7u8; 32];
        let token = issue(&secret, 3, "hash-a").unwrap_or_else(|e| panic!("{e}"));
        assert!(vouches(&secret, 3, "hash-a", &token));
        assert!(!vouches(&secret, 4, "hash-a", &token), "another person");
        assert!(!vouches(&secret, 3, "hash-b", &token), "a new password");
        assert!(!vouches(&[8u8; 32], 3, "hash-a", &token), "another project");
        let (nonce, mac) = token.split_once('.').unwrap_or_default();
        let last = if mac.ends_with('0') { '1' } else { '0' };
        let flipped = format!("{nonce}.{}{last}", &mac[..31]);
        assert!(!vouches(&secret, 3, "hash-a", &flipped), "a forged mac");
        let longer = format!("{nonce}.{mac}0");
        let joined = format!("{nonce}{mac}");
        for bad in ["", ".", "x.y", longer.as_str(), joined.as_str()] {
            assert!(!vouches(&secret, 3, "hash-a", bad), "{bad}");
        }
    }
}
