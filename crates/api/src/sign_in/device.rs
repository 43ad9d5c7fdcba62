//! A device's word for its owner. Each successful sign-in gives back a device token: a
//! random nonce and a hash of it keyed under the project's secret to the person and
//! their password hash. Presented at a later sign-in of the same person, it tells the
//! owner apart from a guesser behind the same address (a lab's NAT, a proxy not named
//! with `--trusted-proxy`), whose five wrong passwords held the name there for the owner
//! too (hostile pass of session 34). A token is counted on its own: wrong passwords with
//! it hold it, not the name or the address. A new password ends every token of the
//! person, as it ends their sessions.

use super::{random_bytes, token_hash};
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

/// What failures with `token` are counted under, if it is one [`issue`] gave
/// `annotator_id` under their current `password_hash`; `None` for anything else.
pub(super) fn vouches(
    secret: &[u8],
    annotator_id: i64,
    password_hash: &str,
    token: &str,
) -> Option<String> {
    let (nonce, given) = token.split_once('.')?;
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex(nonce, 32) || !hex(given, 32) {
        return None;
    }
    let expected = mac(secret, annotator_id, password_hash, nonce);
    // Compared in full whatever differs first: the time taken tells nothing of the mac.
    let same = expected
        .bytes()
        .zip(given.bytes())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b.to_ascii_lowercase()));
    (same == 0).then(|| format!("device:{}", token_hash(nonce)))
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
        let subject = vouches(&secret, 3, "hash-a", &token);
        assert!(subject.as_deref().is_some_and(|s| s.starts_with("device:")));
        assert_eq!(
            vouches(&secret, 4, "hash-a", &token),
            None,
            "another person"
        );
        assert_eq!(
            vouches(&secret, 3, "hash-b", &token),
            None,
            "a new password"
        );
        assert_eq!(
            vouches(&[8u8; 32], 3, "hash-a", &token),
            None,
            "another project"
        );
        let (nonce, mac) = token.split_once('.').unwrap_or_default();
        let flipped = format!(
            "{nonce}.{}{}",
            &mac[..31],
            if mac.ends_with('0') { '1' } else { '0' }
        );
        assert_eq!(
            vouches(&secret, 3, "hash-a", &flipped),
            None,
            "a forged mac"
        );
        for bad in [
            "",
            ".",
            "x.y",
            &format!("{nonce}.{mac}0"),
            &format!("{nonce}{mac}"),
        ] {
            assert_eq!(vouches(&secret, 3, "hash-a", bad), None, "{bad}");
        }
    }
}
