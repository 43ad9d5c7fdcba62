//! A device's word for its owner. Each successful sign-in gives back a device token: a
//! random nonce and a hash of it keyed under the project's secret to the person and
//! their password hash. Presented at a later sign-in of the same person, it tells the
//! owner apart from a guesser behind the same address (a lab's NAT, a proxy not named
//! with `--trusted-proxy`), whose five wrong passwords held the name there for the owner
//! too (hostile pass of session 34). Wrong passwords with any of a person's tokens count
//! against one budget of that person's (so tokens gathered by signing in again and again
//! buy no more checks), and once it is spent a token counts as none. A new password ends
//! every token of the person, as it ends their sessions.

use super::random_bytes;
use crate::Result;

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
