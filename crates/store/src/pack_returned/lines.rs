//! The issued rows of a returned pack as its digest is taken over them: each row as SQLite's
//! `json_array` writes it (`pack_store::issued_rows`, what the pack was issued with), and
//! a newline, written piece by piece into a buffer of fixed size. `json_array` builds each
//! line whole in memory: a doctored text of control characters took six times its size
//! (1.3 GB for a 180 MiB pack), where this holds the row SQLite read and the buffer.

use super::ReadError;
use rusqlite::types::ValueRef;
use std::sync::atomic::{AtomicBool, Ordering};

/// Bytes gathered before they are handed on.
const BUFFER: usize = 64 * 1024;

/// Where the lines go: a buffer handed on whole to `each`.
pub(super) struct Lines<'a> {
    each: &'a mut dyn FnMut(&[u8]),
    buffer: Vec<u8>,
    /// Set once the read's deadline has passed: the loop over a row's bytes is not
    /// SQLite's, so SQLite's interrupt does not stop it.
    expired: &'a AtomicBool,
}

impl<'a> Lines<'a> {
    pub(super) fn new(each: &'a mut dyn FnMut(&[u8]), expired: &'a AtomicBool) -> Lines<'a> {
        Lines {
            each,
            buffer: Vec::with_capacity(BUFFER),
            expired,
        }
    }

    fn put(&mut self, bytes: &[u8]) {
        if self.buffer.len() + bytes.len() > BUFFER {
            self.flush();
        }
        if bytes.len() >= BUFFER {
            (self.each)(bytes);
        } else {
            self.buffer.extend_from_slice(bytes);
        }
    }

    pub(super) fn flush(&mut self) {
        if !self.buffer.is_empty() {
            (self.each)(&self.buffer);
            self.buffer.clear();
        }
    }

    /// One row: `head`, then each value after a comma, then `]` and a newline.
    pub(super) fn row(&mut self, head: &str, row: &rusqlite::Row<'_>) -> Result<(), ReadError> {
        if self.expired.load(Ordering::Relaxed) {
            return Err(ReadError::Refused("its deadline passed".into()));
        }
        self.put(head.as_bytes());
        for i in 0..row.as_ref().column_count() {
            self.put(b",");
            self.value(row.get_ref(i)?)?;
        }
        self.put(b"]\n");
        Ok(())
    }

    /// A value as `json_array` writes it.
    fn value(&mut self, value: ValueRef<'_>) -> Result<(), ReadError> {
        match value {
            ValueRef::Integer(i) => self.put(i.to_string().as_bytes()),
            ValueRef::Text(t) => self.text(t)?,
            ValueRef::Null => self.put(b"null"),
            // No issued column is written as a real or a blob: a byte no issued line
            // holds, so the digest of a pack that holds one does not match.
            ValueRef::Real(_) | ValueRef::Blob(_) => self.put(b"\0"),
        }
        Ok(())
    }

    /// A text as `json_array` writes it (SQLite's `jsonAppendString`): `"` and `\`
    /// escaped by a backslash, every other byte as it is. An issued text is JSON that
    /// Factdesk wrote, its control characters escaped: one that holds a control character
    /// (which `json_array` writes in six bytes) was altered, and is refused at once.
    fn text(&mut self, text: &[u8]) -> Result<(), ReadError> {
        self.put(b"\"");
        for chunk in text.chunks(1024 * 1024) {
            if self.expired.load(Ordering::Relaxed) {
                return Err(ReadError::Refused("its deadline passed".into()));
            }
            let mut rest = chunk;
            while let Some(at) = rest
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
            {
                let c = rest[at];
                if c < 0x20 {
                    return Err(ReadError::Refused(CONTROL.into()));
                }
                self.put(&rest[..at]);
                self.put(&[b'\\', c]);
                rest = &rest[at + 1..];
            }
            self.put(rest);
        }
        self.put(b"\"");
        Ok(())
    }
}

/// The refusal of an issued text that holds a control character.
const CONTROL: &str = "its issued items were altered after it was issued (the contents do not match the signed digest: an item or passage holds a control character, which Factdesk writes escaped)";

#[cfg(test)]
mod tests {
    use super::super::{read, Bounds};
    use super::*;
    use crate::pack_store::{self, PackFile, PackItemRow};
    use std::path::Path;

    fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    /// A pack of one item per text, each text also a passage and an option id.
    fn pack_of(path: &Path, texts: &[String]) {
        let mut pack = ok(PackFile::create(path));
        let tx = ok(pack.transaction());
        for (i, text) in texts.iter().enumerate() {
            let row = PackItemRow {
                position: i as i64 + 1,
                task_id: 1000 - i as i64,
                kind: factdesk_core::task::TaskKind::Evidence,
                item: text.clone(),
            };
            ok(pack_store::insert_item(&tx, &row));
            ok(pack_store::insert_passage(&tx, row.task_id, text, text));
            ok(pack_store::insert_passage(&tx, row.task_id, "z", "\\\""));
        }
        ok(tx.commit());
    }

    fn streamed(path: &Path) -> Result<Vec<u8>, ReadError> {
        read(path, &Bounds::default(), |pack| {
            let mut out = Vec::new();
            pack.issued(&mut |b| out.extend_from_slice(b))?;
            Ok(out)
        })
    }

    /// The issued rows as a merge hashes them are byte for byte the lines SQLite's
    /// `json_array` writes (the digest a pack is issued with), whatever else the texts
    /// hold: quotes, backslashes, every printable byte, characters beyond ASCII, texts
    /// longer than the buffer.
    #[test]
    fn issued_lines_are_those_json_array_writes() {
        let dir = ok(tempfile::tempdir());
        let path = dir.path().join("a.fdpack");
        let printable: String = (0x20u8..=0x7f).map(char::from).collect();
        let texts = [
            printable.clone(),
            format!(
                "{{\"claim\":\"a \\\"quoted\\\" claim\"}} \u{e9}\u{2028}\u{1f600} '{printable}'"
            ),
            String::new(),
            "\"\\".repeat(BUFFER),
        ];
        pack_of(&path, &texts);
        let written: Vec<u8> = ok(pack_store::issued_rows(ok(PackFile::open(&path)).read()))
            .iter()
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect();
        let streamed = ok(streamed(&path));
        assert!(
            streamed == written,
            "{}",
            String::from_utf8_lossy(&streamed)
        );
    }

    /// A control character in an issued text (Factdesk writes them escaped) is refused
    /// as altered, NUL included.
    #[test]
    fn a_control_character_in_an_issued_text_is_refused() {
        let dir = ok(tempfile::tempdir());
        for (i, c) in ['\0', '\u{1}', '\n', '\u{1f}'].iter().enumerate() {
            let path = dir.path().join(format!("{i}.fdpack"));
            pack_of(&path, &[format!("an item{c}")]);
            match streamed(&path) {
                Err(ReadError::Refused(why)) => assert_eq!(why, CONTROL),
                other => panic!("{c:?}: {:?}", other.map(|b| b.len())),
            }
        }
    }
}
