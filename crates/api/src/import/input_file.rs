//! An input file as the import reads it: a regular file with something in it, refused
//! if it changes while it is read.

use crate::{Error, Result};
use std::fs::File;
use std::path::Path;
use std::time::SystemTime;

/// Opens an input file, refusing what is not a regular file with something in it: a
/// folder, a device such as `/dev/zero` (endless) or a named pipe (opening one waits for
/// a writer), also when reached through a link.
pub(super) fn open(path: &Path) -> Result<File> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::input(&name, 0, None, format!("cannot open: {e}")))?;
    if meta.is_dir() {
        return Err(Error::input(
            &name,
            0,
            None,
            "is a folder, not a file of rows (a folder of .txt documents goes with --docs)",
        ));
    }
    if !meta.is_file() {
        return Err(Error::input(
            &name,
            0,
            None,
            "is not a regular file (a device, a pipe or a socket); save the rows to a file \
             and import that",
        ));
    }
    if meta.len() == 0 {
        return Err(Error::input(
            &name,
            1,
            None,
            "the file is empty: there are no rows to import",
        ));
    }
    File::open(path).map_err(|e| Error::input(&name, 0, None, format!("cannot open: {e}")))
}

/// Sees whether a file changed while it was read: a file written to meanwhile (a CSV is
/// read twice, the first time for over-long lines) would give rows from two versions.
pub(super) struct Unchanged {
    /// The same open file as the one being read.
    held: Option<File>,
    before: Option<Stamp>,
}

/// A file's length and times of last change. The status change time is there because a
/// program copying a file in place may set the modification time back (`rsync --inplace
/// -t`); no program can set that one.
#[derive(Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: SystemTime,
    changed: (i64, i64),
}

impl Unchanged {
    pub(super) fn watch(file: &File) -> Unchanged {
        let held = file.try_clone().ok();
        let before = held.as_ref().and_then(stamp);
        Unchanged { held, before }
    }

    /// Refuses the file `name` if it changed since [`Unchanged::watch`].
    pub(super) fn check(&self, name: &str) -> Result<()> {
        match self.held.as_ref().and_then(stamp) == self.before {
            true => Ok(()),
            false => Err(Error::input(
                name,
                0,
                None,
                "the file changed while it was read (is it still being written?); import it \
                 again once it is complete (nothing was imported)",
            )),
        }
    }
}

fn stamp(file: &File) -> Option<Stamp> {
    let meta = file.metadata().ok()?;
    #[cfg(unix)]
    let changed = {
        use std::os::unix::fs::MetadataExt;
        (meta.ctime(), meta.ctime_nsec())
    };
    #[cfg(not(unix))]
    let changed = (0, 0);
    Some(Stamp {
        len: meta.len(),
        modified: meta.modified().ok()?,
        changed,
    })
}

#[cfg(test)]
mod tests {
    use super::super::rows;
    use crate::Error;

    /// A file written to while it is read is refused, in either format, however many of
    /// its rows were read before and after the write.
    #[test]
    fn a_file_that_changes_while_it_is_read_is_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for (name, head, row) in [
            ("c.csv", "id,claim\n", "r{i},Claim {i}.\n"),
            (
                "c.jsonl",
                "",
                "{\"id\": \"r{i}\", \"claim\": \"Claim {i}.\"}\n",
            ),
        ] {
            for write in [
                "append",
                "truncate",
                "same size, times put back",
                "cut, then a bad row",
            ] {
                let path = dir.path().join(name);
                let rows: String = (0..3 * rows::BATCH_ROWS)
                    .map(|i| row.replace("{i}", &i.to_string()))
                    .collect();
                std::fs::write(&path, format!("{head}{rows}")).unwrap_or_else(|e| panic!("{e}"));
                let mut first = true;
                let result = rows::batches(&path, |_| {
                    if !std::mem::take(&mut first) {
                        return Ok(());
                    }
                    let mut file = std::fs::OpenOptions::new().write(true).open(&path);
                    let file = file.as_mut().unwrap_or_else(|e| panic!("{e}"));
                    let meta = file.metadata().unwrap_or_else(|e| panic!("{e}"));
                    let len = meta.len();
                    match write {
                        "append" => file.set_len(len + 1),
                        "same size, times put back" => {
                            use std::io::{Seek, Write};
                            let times = std::fs::FileTimes::new()
                                .set_modified(meta.modified().unwrap_or_else(|e| panic!("{e}")));
                            file.seek(std::io::SeekFrom::End(-8))
                                .and_then(|_| file.write_all(b"Changed."))
                                .and_then(|()| file.set_times(times))
                        }
                        _ => file.set_len(len / 2),
                    }
                    .unwrap_or_else(|e| panic!("{e}"));
                    match write {
                        // As a row cut in the middle would read.
                        "cut, then a bad row" => Err(Error::input("x", 7, None, "broken row")),
                        _ => Ok(()),
                    }
                });
                let message = result.err().map(|e| e.to_string()).unwrap_or_default();
                assert!(
                    message.contains("the file changed while it was read"),
                    "{name}, {write}: {message}"
                );
            }
            // Unchanged, it reads.
            let path = dir.path().join(name);
            let rows: String = (0..3).map(|i| row.replace("{i}", &i.to_string())).collect();
            std::fs::write(&path, format!("{head}{rows}")).unwrap_or_else(|e| panic!("{e}"));
            rows::batches(&path, |_| Ok(())).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
