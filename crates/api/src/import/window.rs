//! The part of a CSV or TSV file being read, and its line numbers.
//!
//! Rows are read from a window of the file rather than the whole of it, so that a large
//! file is never held at once beside the rows it becomes. A record is only read once the
//! window holds all of it and the line after it, where the quoting checks look for the
//! next row's id; otherwise the window moves on to start at the record and grows.

use super::row::MAX_ROW_BYTES;
use crate::{Error, Result};
use std::io::Read;

/// How much of a file is read at a time.
pub(super) const WINDOW_BYTES: usize = 8 * 1024 * 1024;

pub(super) struct Window<R> {
    src: R,
    pub(super) bytes: Vec<u8>,
    /// The line numbers of `bytes`, carried on as the window moves.
    pub(super) lines: Lines,
    size: usize,
    eof: bool,
}

impl<R: Read> Window<R> {
    /// A window of `size` bytes at the start of `src`.
    pub(super) fn new(name: &str, src: R, size: usize) -> Result<Window<R>> {
        let mut w = Window {
            src,
            bytes: Vec::new(),
            lines: Lines { at: 0, line: 1 },
            size: size.max(1),
            eof: false,
        };
        w.move_to(name, 0)?;
        Ok(w)
    }

    /// Drops the bytes before `from` (counting the line ends among them) and reads on, to
    /// the window's size or twice what is left, whichever is more, so that a record longer
    /// than the window is read whole.
    pub(super) fn move_to(&mut self, name: &str, from: usize) -> Result<()> {
        let from = from.min(self.bytes.len());
        self.lines.count_to(&self.bytes, from);
        self.lines.at = 0;
        self.bytes.drain(..from);
        let want = (self.bytes.len() * 2).max(self.size);
        let missing = want.saturating_sub(self.bytes.len());
        if missing == 0 || self.eof {
            return Ok(());
        }
        let held = self.bytes.len();
        let read = match (&mut self.src)
            .take(missing as u64)
            .read_to_end(&mut self.bytes)
        {
            Ok(n) => n,
            Err(e) => {
                // The line being read when it failed: the one after the last whole line held.
                let mut from_start = Lines {
                    at: 0,
                    line: self.lines.line,
                };
                let line = from_start.count_to(&self.bytes, held);
                return Err(Error::input(name, line, None, format!("cannot read: {e}")));
            }
        };
        self.eof = read < missing;
        Ok(())
    }

    /// Whether the window reaches the end of the file.
    pub(super) fn at_end(&self) -> bool {
        self.eof
    }

    /// Whether a record that ends at `end` can be read from the window: the line after it
    /// ends inside the window (with the byte after that line end, which tells a CRLF from
    /// a lone CR), or the file ends inside it.
    pub(super) fn holds(&self, end: usize) -> bool {
        self.eof
            || self
                .bytes
                .get(end..)
                .and_then(|rest| rest.iter().position(|&b| b == b'\n' || b == b'\r'))
                .is_some_and(|i| end + i + 1 < self.bytes.len())
    }
}

/// Line numbers of byte offsets in the window, counted once (a line ends at LF, CRLF or a
/// lone CR, as the CSV reader reads them).
pub(super) struct Lines {
    at: usize,
    line: u64,
}

impl Lines {
    /// The first byte of the record that the reader says starts at `offset` (past any
    /// line ends before it) and its line.
    pub(super) fn locate(&mut self, bytes: &[u8], offset: usize) -> (usize, u64) {
        let mut start = offset.min(bytes.len());
        while start < bytes.len() && matches!(bytes[start], b'\n' | b'\r') {
            start += 1;
        }
        (start, self.count_to(bytes, start))
    }

    /// The line of byte `offset`, counting the line ends between it and the last offset
    /// asked for (backwards too: the bytes before the window are gone).
    fn count_to(&mut self, bytes: &[u8], offset: usize) -> u64 {
        for i in self.at.min(offset)..self.at.max(offset) {
            if is_line_break(bytes, i) {
                if offset > self.at {
                    self.line += 1;
                } else {
                    self.line -= 1;
                }
            }
        }
        self.at = offset;
        self.line
    }
}

pub(super) fn is_line_break(bytes: &[u8], i: usize) -> bool {
    bytes[i] == b'\n' || (bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

/// The offset just past the line that holds byte `i`.
pub(super) fn line_end(bytes: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < bytes.len() && !is_line_break(bytes, j) {
        j += 1;
    }
    (j + 1).min(bytes.len())
}

/// A file with a line over the row limit is refused whole, before the CSV reader holds
/// it: a NUL-filled or binary file would otherwise grow one record without end. Read
/// through once, a block at a time.
pub(super) fn refuse_long_lines(name: &str, mut src: impl Read) -> Result<()> {
    let too_long = |line| {
        Error::input(
            name,
            line,
            None,
            format!(
                "the line is over the {} MB limit for one row; is this a CSV or TSV file?",
                MAX_ROW_BYTES / (1024 * 1024)
            ),
        )
    };
    let mut block = vec![0u8; 1 << 20];
    // `at`: the next byte's place in its line. A CR is a line end only when no LF follows,
    // so it is judged at the next byte.
    let (mut line, mut at, mut after_cr) = (1u64, 0usize, false);
    loop {
        let n = match src.read(&mut block) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::input(name, line, None, format!("cannot read: {e}"))),
        };
        for &b in &block[..n] {
            if std::mem::take(&mut after_cr) {
                if b == b'\n' {
                    if at > MAX_ROW_BYTES {
                        return Err(too_long(line));
                    }
                    at += 1;
                } else {
                    line += 1;
                    at = 0;
                }
            }
            match b {
                b'\n' => {
                    line += 1;
                    at = 0;
                }
                b'\r' => after_cr = true,
                _ => {
                    if at > MAX_ROW_BYTES {
                        return Err(too_long(line));
                    }
                    at += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives `bytes`, then fails (a disk error, a file on a lost network share).
    struct FailsAfter<'a>(&'a [u8]);

    impl Read for FailsAfter<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("device gone"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// A read that fails midway names the line it was reading, in both passes.
    #[test]
    fn a_failed_read_names_the_line_it_was_reading() {
        let bytes = b"id,claim\n1,a\r\n2,b\r3,c\n4,d";
        let line_of = |e: Error| e.location.map(|l| l.line);
        let error = refuse_long_lines("t.csv", FailsAfter(bytes)).err();
        assert_eq!(error.map(line_of), Some(Some(5)));
        // The window moves on as the reader does, keeping part of what it held.
        let mut w = Window::new("t.csv", FailsAfter(bytes), 8).unwrap_or_else(|e| panic!("{e}"));
        let error = loop {
            let keep = w.bytes.len().min(3);
            if let Err(e) = w.move_to("t.csv", w.bytes.len() - keep) {
                break e;
            }
        };
        assert_eq!(line_of(error), Some(5));
    }

    /// The limit as the whole-file check counted it: a byte past `MAX_ROW_BYTES` places
    /// into its line, where the CR of a CRLF is a byte of the line.
    #[test]
    fn a_line_is_too_long_at_the_same_byte_as_before() {
        let line = |n: usize, end: &[u8]| {
            let mut bytes = b"id,claim\n".to_vec();
            bytes.resize(bytes.len() + n, b'x');
            bytes.extend_from_slice(end);
            bytes.extend_from_slice(b"2,y\n");
            bytes
        };
        let refused = |bytes: Vec<u8>| refuse_long_lines("t.csv", bytes.as_slice()).is_err();
        let m = MAX_ROW_BYTES;
        assert!(!refused(line(m + 1, b"\n")));
        assert!(refused(line(m + 2, b"\n")));
        assert!(!refused(line(m, b"\r\n")));
        assert!(refused(line(m + 1, b"\r\n")));
        assert!(!refused(line(m + 1, b"\r")));
    }
}
