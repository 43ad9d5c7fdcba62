//! Content digests: how Factdesk recognises the same text or row again (an import run
//! twice, a refutation written twice).

/// A content digest of `bytes`: BLAKE3, hex encoded.
pub fn digest(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}
