//! A returned pack's `sqlite_master`, read from the file's bytes before SQLite opens it.
//! SQLite parses every schema entry on a connection's first statement, before any bound
//! of ours applies and beyond the reach of an interrupt: one view whose CHECK lists 20
//! million values took 7 s and 2.4 GB to be refused (hostile pass of session 33). Read
//! here, within a few pages and bytes, the entries can be compared with the schema a pack
//! is written with, and SQLite only ever parses that one.
//!
//! The format is SQLite's own (sqlite.org/fileformat.html): the schema is the table
//! b-tree rooted at page 1; each row is a record of type, name, table, root page, SQL.

use super::SchemaEntry;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Pages of the schema's b-tree read at most (overflow pages included). The schema a
/// pack is written with fits in a handful at any page size.
const MOST_PAGES: usize = 32;
/// Bytes of schema records read at most; the written schema holds under 2 kB.
const MOST_BYTES: usize = 64 * 1024;

/// Why the schema could not be read; said as the end of "its schema …".
type Refusal = String;

struct File {
    file: std::fs::File,
    page_size: usize,
    usable: usize,
    pages: u64,
    read: usize,
    bytes: usize,
}

impl File {
    fn page(&mut self, number: u64) -> Result<Vec<u8>, Refusal> {
        self.read += 1;
        if self.read > MOST_PAGES {
            return Err(format!("spans more than {MOST_PAGES} pages"));
        }
        if number == 0 || number > self.pages {
            return Err(format!("names page {number}, outside the file"));
        }
        let mut page = vec![0u8; self.page_size];
        self.file
            .read_exact_at(&mut page, (number - 1) * self.page_size as u64)
            .map_err(|e| format!("cannot be read: {e}"))?;
        Ok(page)
    }
}

fn be16(b: &[u8], at: usize) -> Result<usize, Refusal> {
    b.get(at..at + 2)
        .map(|s| usize::from(u16::from_be_bytes([s[0], s[1]])))
        .ok_or_else(|| "is cut short".to_string())
}

fn be32(b: &[u8], at: usize) -> Result<u64, Refusal> {
    b.get(at..at + 4)
        .map(|s| u64::from(u32::from_be_bytes([s[0], s[1], s[2], s[3]])))
        .ok_or_else(|| "is cut short".to_string())
}

/// SQLite's variable-length integer at `at`: the value and the bytes it took.
fn varint(b: &[u8], at: usize) -> Result<(u64, usize), Refusal> {
    let mut v = 0u64;
    for i in 0..9 {
        let byte = *b.get(at + i).ok_or_else(|| "is cut short".to_string())?;
        if i == 8 {
            return Ok(((v << 8) | u64::from(byte), 9));
        }
        v = (v << 7) | u64::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            return Ok((v, i + 1));
        }
    }
    Ok((v, 9))
}

/// The layout version the header gives (`PRAGMA user_version`) and the schema entries of
/// the pack at `path`, in row order; `None` when the file is not an SQLite database at
/// all (opening it then says what it is).
pub(super) fn entries(path: &Path) -> Result<Option<(i64, Vec<SchemaEntry>)>, Refusal> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot be read: {e}"))?;
    let mut header = [0u8; 100];
    if file.read_exact_at(&mut header, 0).is_err() || &header[..16] != b"SQLite format 3\0" {
        return Ok(None);
    }
    let page_size = match be16(&header, 16)? {
        1 => 65_536,
        n if n >= 512 && n.is_power_of_two() => n,
        n => return Err(format!("has a page size of {n}")),
    };
    let usable = page_size - usize::from(header[20]);
    if be32(&header, 56)? != 1 {
        return Err("is not in UTF-8, as every pack Factdesk writes is".into());
    }
    let size = file
        .metadata()
        .map_err(|e| format!("cannot be read: {e}"))?
        .len();
    let mut f = File {
        file,
        page_size,
        usable,
        pages: size / page_size as u64,
        read: 0,
        bytes: 0,
    };
    let mut out = Vec::new();
    let mut pending = vec![1u64];
    while let Some(number) = pending.pop() {
        let page = f.page(number)?;
        let at = if number == 1 { 100 } else { 0 };
        let cells = be16(&page, at + 3)?;
        match page.get(at) {
            Some(0x05) => {
                // Interior: children in key order, the rightmost last; popped in order.
                let mut children = Vec::with_capacity(cells + 1);
                for c in 0..cells {
                    children.push(be32(&page, be16(&page, at + 12 + 2 * c)?)?);
                }
                children.push(be32(&page, at + 8)?);
                pending.extend(children.into_iter().rev());
            }
            Some(0x0d) => {
                for c in 0..cells {
                    let payload = payload(&mut f, &page, be16(&page, at + 8 + 2 * c)?)?;
                    out.push(record(&payload)?);
                }
            }
            _ => return Err(format!("has page {number}, which is not a table's")),
        }
    }
    let version = i64::from(i32::from_be_bytes([
        header[60], header[61], header[62], header[63],
    ]));
    Ok(Some((version, out)))
}

/// A leaf cell's payload, with its overflow pages.
fn payload(f: &mut File, page: &[u8], cell: usize) -> Result<Vec<u8>, Refusal> {
    let (size, a) = varint(page, cell)?;
    let (_rowid, b) = varint(page, cell + a)?;
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    f.bytes = f.bytes.saturating_add(size);
    if f.bytes > MOST_BYTES {
        return Err(format!("holds more than {MOST_BYTES} bytes"));
    }
    let start = cell + a + b;
    // How much of the payload stays on the page (the file format's rule).
    let most_local = f.usable - 35;
    let least_local = (f.usable - 12) * 32 / 255 - 23;
    let local = if size <= most_local {
        size
    } else {
        let k = least_local + (size - least_local) % (f.usable - 4);
        if k <= most_local {
            k
        } else {
            least_local
        }
    };
    let mut out = page
        .get(start..start + local)
        .ok_or_else(|| "is cut short".to_string())?
        .to_vec();
    let mut next = if local < size {
        be32(page, start + local)?
    } else {
        0
    };
    while out.len() < size {
        let over = f.page(next)?;
        next = be32(&over, 0)?;
        let take = (size - out.len()).min(f.usable - 4);
        out.extend_from_slice(&over[4..4 + take]);
    }
    Ok(out)
}

/// One `sqlite_master` record: type, name, table, root page (skipped), SQL.
fn record(payload: &[u8]) -> Result<SchemaEntry, Refusal> {
    let (header, mut at) = varint(payload, 0)?;
    let header = usize::try_from(header).unwrap_or(usize::MAX);
    let mut types = Vec::new();
    while at < header {
        let (t, n) = varint(payload, at)?;
        types.push(t);
        at += n;
    }
    let mut body = header;
    let mut values: Vec<Option<String>> = Vec::new();
    for t in types {
        let len = match t {
            0 | 8 | 9 => 0,
            1..=4 => t as usize,
            5 => 6,
            6 | 7 => 8,
            t if t >= 12 => ((t - 12) / 2) as usize,
            _ => return Err("holds a malformed entry".into()),
        };
        let bytes = payload
            .get(body..body + len)
            .ok_or_else(|| "is cut short".to_string())?;
        values.push(if t >= 13 && t % 2 == 1 {
            Some(
                String::from_utf8(bytes.to_vec())
                    .map_err(|_| "holds text that is not UTF-8".to_string())?,
            )
        } else {
            None
        });
        body += len;
    }
    match values.as_slice() {
        [Some(kind), Some(name), Some(table), _, sql] => {
            Ok((kind.clone(), name.clone(), table.clone(), sql.clone()))
        }
        _ => Err("holds an entry that is not type, name, table, page and SQL".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::entries;
    use crate::pack_returned::{read, schema_of, Bounds, ReadError};
    use crate::pack_store::PackFile;
    use std::path::Path;

    fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    fn refusal(path: &Path) -> String {
        match read(path, &Bounds::default(), |r| r.census()) {
            Err(ReadError::Refused(why)) => why,
            other => panic!("not refused as a pack: {other:?}"),
        }
    }

    fn tamper(path: &Path, sql: &str) {
        let raw = ok(rusqlite::Connection::open(path));
        ok(raw.execute_batch(sql));
    }

    /// The bytes give the entries SQLite itself lists, at every page size a pack may
    /// have, including entries that overflow their page.
    #[test]
    fn the_schema_read_from_the_bytes_is_the_one_sqlite_reads() {
        for page_size in [512, 4096, 65_536] {
            let dir = ok(tempfile::tempdir());
            let path = dir.path().join("a.fdpack");
            drop(ok(PackFile::create(&path)));
            tamper(
                &path,
                &format!(
                    "PRAGMA page_size = {page_size}; VACUUM;
                          CREATE TABLE extra (a CHECK (a IN ({})));",
                    vec!["1"; 3000].join(",")
                ),
            );
            let raw = ok(rusqlite::Connection::open(&path));
            let mut sqlite = ok(schema_of(&raw));
            let Some((version, mut ours)) = ok(entries(&path)) else {
                panic!("not read")
            };
            assert_eq!(version, crate::pack_store::PACK_VERSION);
            sqlite.sort();
            ours.sort();
            assert_eq!(ours, sqlite, "page size {page_size}");
        }
    }

    /// Issue 31, hostile pass of session 33: SQLite parsed a doctored pack's whole schema
    /// (20 million values in one CHECK: 7 s, 2.4 GB) before any bound applied. An entry
    /// SQLite cannot even parse shows that the check now comes first: the refusal names
    /// the entry, where SQLite would have failed on the malformed schema.
    #[test]
    fn a_schema_entry_is_refused_from_the_bytes_before_sqlite_parses_it() {
        let dir = ok(tempfile::tempdir());
        let path = dir.path().join("a.fdpack");
        drop(ok(PackFile::create(&path)));
        tamper(
            &path,
            "PRAGMA writable_schema = ON;
             INSERT INTO sqlite_master VALUES ('view', 'bomb', 'bomb', 0, 'CREATE VIEW bomb AS ((((');",
        );
        let why = refusal(&path);
        assert!(
            why.contains("\"bomb\"") && why.contains("never writes"),
            "{why}"
        );
    }

    /// A schema spread over many pages (100,000 small views took 6–10 s to parse) is
    /// refused after a few pages.
    #[test]
    fn a_schema_past_the_bounds_is_refused_unread() {
        let dir = ok(tempfile::tempdir());
        let path = dir.path().join("a.fdpack");
        drop(ok(PackFile::create(&path)));
        let views: String = (0..3000)
            .map(|i| format!("CREATE VIEW v{i} AS SELECT {i};"))
            .collect();
        tamper(&path, &format!("BEGIN; {views} COMMIT;"));
        let why = refusal(&path);
        assert!(why.contains("more than"), "{why}");
    }
}
