//! A fast hash for keys of the lead's own data: row ids, names to intern.

use std::hash::Hasher;

/// A multiply-rotate hash over 8-byte words. Interning hundreds of thousands of short
/// names was a third of `factdesk agreement`'s time with the default SipHash, and maps
/// keyed by row ids were a tenth of it again; SipHash's resistance to crafted collisions
/// buys nothing for ids the database assigned or a lead's own ratings file.
#[derive(Debug, Default)]
pub struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_i64(&mut self, i: i64) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        // Fold the high bits down: hashbrown takes its bucket from the low ones.
        self.0 ^ (self.0 >> 29)
    }
}

/// A map with [`KeyHasher`], for keys from the lead's own data other than one row id:
/// pairs of ids, sets of them, names to intern.
pub type KeyMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<KeyHasher>>;

/// A map keyed by row ids with [`KeyHasher`].
pub type IdMap<V> = KeyMap<i64, V>;
