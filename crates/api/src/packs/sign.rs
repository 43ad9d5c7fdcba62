//! HMAC-SHA256 (RFC 2104, the `hmac` crate) keyed by the project's secret: signs a pack's manifest and
//! derives the opaque sentence ids a pack uses, so only the lead's project can map them.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// HMAC-SHA256 of `message` under `key`.
pub(crate) fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        unreachable!("HMAC takes a key of any length")
    };
    mac.update(message);
    mac.finalize().into_bytes().into()
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

/// SHA-256 of the lines, each ended by a newline, hex encoded.
pub(crate) fn digest_lines(lines: &[String]) -> String {
    let mut h = Sha256::new();
    for line in lines {
        h.update(line.as_bytes());
        h.update(b"\n");
    }
    hex(&h.finalize())
}

/// Compares two signatures in time independent of where they differ.
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

/// A positive 62-bit row id drawn from `label` under the key: looks like any other id.
pub(crate) fn opaque_id(key: &[u8], label: &str) -> i64 {
    let h = hmac_sha256(key, label.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&h[..8]);
    (u64::from_le_bytes(first) >> 2) as i64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_4231_case_2() {
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            hex(&mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn long_keys_are_hashed_first() {
        // RFC 4231 case 6: a 131-byte key.
        let mac = hmac_sha256(
            &[0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First",
        );
        assert_eq!(
            hex(&mac),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }
}
