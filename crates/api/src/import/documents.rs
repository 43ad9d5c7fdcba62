//! Evidence documents: JSON Lines (id, url, title, text), a folder of `.txt` files, or
//! the evidence sentences that come inside a claim row.

use super::fields::Fields;
use super::rows::{self, BadRow};
use crate::{Error, Result};
use factdesk_core::text;
use std::path::Path;
use std::sync::Arc;

/// A document read from the input, split into sentences, not yet written.
#[derive(Debug, Clone)]
pub struct DocumentInput {
    /// Shared by every row of its file: one name, not one copy per row.
    pub file: Arc<str>,
    pub line: u64,
    pub ext_id: String,
    pub url: Option<String>,
    pub title: Option<String>,
    pub text: String,
    pub sentences: Vec<SentenceSpan>,
    pub raw: String,
    hash: std::sync::OnceLock<String>,
}

impl DocumentInput {
    pub fn hash(&self) -> &str {
        self.hash.get_or_init(|| {
            // The JSON array [url, title, text], streamed into the hash rather than built:
            // a document's text is not copied twice to be hashed once.
            super::digest_json(&(&self.url, &self.title, &self.text))
        })
    }

    pub fn sentence_text(&self, i: usize) -> &str {
        let s = &self.sentences[i];
        &self.text[s.bytes.0..s.bytes.1]
    }
}

/// Where a sentence sits in its document: bytes for slicing here, characters for storing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentenceSpan {
    pub bytes: (usize, usize),
    pub chars: (usize, usize),
}

/// Splits a document's text into sentences with character offsets, counting characters
/// once over the whole text rather than once per sentence.
pub fn split(text: &str) -> Vec<SentenceSpan> {
    let spans = text::sentences(text);
    let mut out = Vec::with_capacity(spans.len());
    let (mut byte, mut chars) = (0usize, 0usize);
    for span in spans {
        chars += text[byte..span.start].chars().count();
        let start = chars;
        chars += text[span.start..span.end].chars().count();
        byte = span.end;
        out.push(SentenceSpan {
            bytes: (span.start, span.end),
            chars: (start, chars),
        });
    }
    out
}

/// Merges a document's sentences into paragraphs, the units ranked and chosen as
/// candidates from then on: consecutive sentences until a paragraph holds more than
/// `longer_than` characters (a shorter rest joins the paragraph before it), each
/// paragraph led by the document's title, as the multilingual pipeline built its evidence.
/// The document's text becomes its paragraphs, a blank line apart.
pub fn into_paragraphs(doc: &mut DocumentInput, longer_than: usize) {
    let n = doc.sentences.len();
    if n == 0 {
        return;
    }
    // Each paragraph as its first and last sentence.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut first = 0;
    for (i, s) in doc.sentences.iter().enumerate() {
        if s.chars.1 - doc.sentences[first].chars.0 > longer_than {
            groups.push((first, i));
            first = i + 1;
        }
    }
    if first < n {
        match groups.last_mut() {
            Some(last) => last.1 = n - 1,
            None => groups.push((first, n - 1)),
        }
    }
    let title = doc
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| format!("{t} — "));
    let mut text = String::with_capacity(doc.text.len() + groups.len() * 64);
    let mut spans = Vec::with_capacity(groups.len());
    let mut chars = 0;
    for (a, b) in groups {
        if !text.is_empty() {
            text.push_str("\n\n");
            chars += 2;
        }
        let (begin, begin_chars) = (text.len(), chars);
        if let Some(title) = &title {
            text.push_str(title);
            chars += title.chars().count();
        }
        let body = &doc.text[doc.sentences[a].bytes.0..doc.sentences[b].bytes.1];
        text.push_str(body);
        chars += body.chars().count();
        spans.push(SentenceSpan {
            bytes: (begin, text.len()),
            chars: (begin_chars, chars),
        });
    }
    doc.text = text;
    doc.sentences = spans;
    doc.hash = std::sync::OnceLock::new();
}

/// The id of the document [`from_sentences`] makes of these sentences.
pub fn evidence_id(sentences: &[String]) -> String {
    let id = super::digest(serde_json::json!(sentences).to_string().as_bytes());
    format!("{}{}", crate::gold::IMPORTED_EVIDENCE_PREFIX, &id[..16])
}

/// A document made of sentences given one by one (a claim's `evidence` list): they are
/// kept as given rather than split again, joined by single spaces.
pub fn from_sentences(
    file: &Arc<str>,
    line: u64,
    url: Option<String>,
    sentences: &[String],
) -> DocumentInput {
    let mut text = String::new();
    let mut spans = Vec::with_capacity(sentences.len());
    let mut chars = 0;
    for s in sentences {
        if !text.is_empty() {
            text.push(' ');
            chars += 1;
        }
        let n = s.chars().count();
        spans.push(SentenceSpan {
            bytes: (text.len(), text.len() + s.len()),
            chars: (chars, chars + n),
        });
        chars += n;
        text.push_str(s);
    }
    DocumentInput {
        file: file.clone(),
        line,
        ext_id: evidence_id(sentences),
        url,
        title: None,
        text,
        sentences: spans,
        raw: String::new(),
        hash: std::sync::OnceLock::new(),
    }
}

/// Reads documents from a JSON Lines file (or CSV/TSV) or a folder of `.txt` files onto
/// the end of `docs`. Rows that cannot be read come back, in order, so that
/// `--skip-invalid` can set them aside; good rows keep their raw text only with `keep_raw`
/// (for the rejects file). Each batch read advances `progress` from `rows_before` and asks
/// whether to stop.
pub fn read(
    path: &Path,
    keep_raw: bool,
    rows_before: u64,
    progress: &mut dyn crate::progress::Progress,
    docs: &mut Vec<DocumentInput>,
) -> Result<Vec<BadRow>> {
    let mut bad = Vec::new();
    if path.is_dir() {
        for row in read_folder(path)? {
            match row {
                Ok(doc) => docs.push(doc),
                Err(row) => bad.push(row),
            }
        }
        return Ok(bad);
    }
    let name: Arc<str> = path.display().to_string().into();
    let convert = |row: std::result::Result<rows::Row, BadRow>| {
        let row = row?;
        let f = Fields {
            file: &name,
            row: &row,
        };
        let mut doc = from_fields(&f).map_err(|error| BadRow {
            error,
            raw: row.raw.clone(),
        })?;
        if keep_raw {
            doc.raw = row.raw;
        }
        doc.hash();
        Ok(doc)
    };
    // Parsing and splitting dominate reading documents: they run on every core, a chunk
    // at a time, so the file's rows are never all held at once beside the documents. The
    // documents go straight onto `docs`: a list of them all, copied onto `docs` once read,
    // was a second copy of every document's fields just as the import's memory peaks.
    let start = docs.len();
    rows::batches(path, |batch| {
        for row in batch.map(&name, convert) {
            match row {
                Ok(doc) => docs.push(doc),
                Err(row) => bad.push(row),
            }
        }
        progress.set(rows_before + (docs.len() - start + bad.len()) as u64);
        progress.check_cancelled()
    })?;
    Ok(bad)
}

fn from_fields(f: &Fields<'_>) -> Result<DocumentInput> {
    let ext_id = f.required_id("id")?;
    let text = f.required_str("text")?;
    // FEVER's wiki pages carry their sentences in "lines" as "index<TAB>sentence" rows;
    // keeping them preserves FEVER's sentence numbering.
    let fever_lines = f.opt_str("lines")?;
    let (text, sentences) = match fever_lines {
        Some(lines) => {
            let given: Vec<String> = lines
                .split('\n')
                .filter_map(|l| l.split('\t').nth(1))
                .map(str::to_string)
                .collect();
            let doc = from_sentences(f.file, f.row.line, None, &given);
            (doc.text, doc.sentences)
        }
        None => {
            let sentences = split(&text);
            (text, sentences)
        }
    };
    Ok(DocumentInput {
        file: f.file.clone(),
        line: f.row.line,
        ext_id,
        url: f.opt_str("url")?,
        title: f.opt_str("title")?,
        text,
        sentences,
        raw: String::new(),
        hash: std::sync::OnceLock::new(),
    })
}

fn read_folder(dir: &Path) -> Result<Vec<std::result::Result<DocumentInput, BadRow>>> {
    let dir_name = dir.display().to_string();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| Error::input(&dir_name, 0, None, format!("cannot list the folder: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("txt")))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(Error::input(
            &dir_name,
            0,
            None,
            "the folder holds no .txt documents",
        ));
    }
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let name = p.display().to_string();
        let bytes = match read_txt(&name, &p)? {
            Ok(bytes) => bytes,
            Err(bad) => {
                out.push(Err(bad));
                continue;
            }
        };
        let doc = match String::from_utf8(bytes) {
            Ok(text) if text.trim().is_empty() => Err(BadRow {
                error: Error::input(&name, 1, Some("text"), "the document is empty"),
                raw: String::new(),
            }),
            Ok(text) if text.contains('\0') => {
                let at = text.find('\0').unwrap_or(0);
                let line = text[..at].matches('\n').count() as u64 + 1;
                Err(BadRow {
                    error: rows::nul_error(&name, line, "text"),
                    raw: String::new(),
                })
            }
            Ok(text) => {
                let ext_id = p
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                Ok(DocumentInput {
                    file: name.into(),
                    line: 1,
                    ext_id,
                    url: None,
                    title: None,
                    sentences: split(&text),
                    text,
                    raw: String::new(),
                    hash: std::sync::OnceLock::new(),
                })
            }
            Err(e) => {
                let bytes = e.as_bytes();
                let at = e.utf8_error().valid_up_to();
                let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
                Err(BadRow {
                    error: Error::input(
                        &name,
                        line,
                        Some("text"),
                        "invalid UTF-8; save the file as UTF-8",
                    ),
                    raw: String::new(),
                })
            }
        };
        out.push(doc);
    }
    Ok(out)
}

/// One `.txt` document's bytes. A link to a device or a pipe, or a file over the row
/// limit, is set aside as a bad row rather than read without end.
fn read_txt(name: &str, path: &Path) -> Result<std::result::Result<Vec<u8>, BadRow>> {
    use std::io::Read;
    let bad = |message: String| {
        Ok(Err(BadRow {
            error: Error::input(name, 0, Some("text"), message),
            raw: String::new(),
        }))
    };
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::input(name, 0, None, format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return bad(
            "is not a regular file (a folder, a device or a pipe); only .txt files are \
                    read as documents"
                .to_string(),
        );
    }
    let limit = rows::MAX_ROW_BYTES as u64;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
        .map_err(|e| Error::input(name, 0, None, format!("cannot read: {e}")))?;
    if bytes.len() as u64 > limit {
        return bad(format!(
            "the document is {:.1} MB long, over the {} MB limit for one document",
            meta.len().max(limit + 1) as f64 / 1e6,
            limit / (1024 * 1024)
        ));
    }
    Ok(Ok(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Projects hold the hashes of their documents: the streamed hash must equal the one
    /// earlier versions took of the built JSON value, or a re-import would differ.
    #[test]
    fn the_hash_is_the_one_projects_already_hold() {
        let mut doc = from_sentences(&Arc::from("f"), 1, None, &["A \"quoted\" line.".into()]);
        doc.title = Some("Tïtle\n".into());
        let old = serde_json::json!([doc.url, doc.title, doc.text]);
        assert_eq!(doc.hash(), super::super::digest(old.to_string().as_bytes()));
    }

    #[test]
    fn offsets_are_in_characters() {
        let doc = from_sentences(
            &Arc::from("f"),
            1,
            None,
            &["Café öffnet.".into(), "Zweiter Satz.".into()],
        );
        assert_eq!(doc.sentence_text(0), "Café öffnet.");
        assert_eq!(doc.sentence_text(1), "Zweiter Satz.");
        assert_eq!(doc.sentences[1].chars, (13, 26));
        let split = split("Café öffnet. Zweiter Satz.");
        assert_eq!(split, doc.sentences);
    }

    /// Issue 33: paragraph evidence, each paragraph over the length asked for, the title
    /// first, offsets that still slice the (new) text in characters.
    #[test]
    fn sentences_merge_into_paragraphs_led_by_the_title() {
        let sentences: Vec<String> = (0..7).map(|i| format!("Sätze {i} sind zwölf.")).collect();
        let mut doc = from_sentences(&Arc::from("f"), 1, None, &sentences);
        doc.title = Some(" Über Uns ".into());
        let before = doc.hash().to_owned();
        into_paragraphs(&mut doc, 40);
        // 20 characters a sentence and a space: three make 62 > 40; the last one joins
        // the paragraph before it.
        let texts: Vec<&str> = (0..doc.sentences.len())
            .map(|i| doc.sentence_text(i))
            .collect();
        assert_eq!(
            texts,
            [
                "Über Uns — Sätze 0 sind zwölf. Sätze 1 sind zwölf. Sätze 2 sind zwölf.",
                "Über Uns — Sätze 3 sind zwölf. Sätze 4 sind zwölf. Sätze 5 sind zwölf. Sätze 6 sind zwölf.",
            ]
        );
        for span in &doc.sentences {
            let by_chars: String = doc
                .text
                .chars()
                .skip(span.chars.0)
                .take(span.chars.1 - span.chars.0)
                .collect();
            assert_eq!(by_chars, doc.text[span.bytes.0..span.bytes.1]);
        }
        assert_ne!(doc.hash(), before, "another document, another hash");
        // No title, one short sentence: one paragraph of it.
        let mut short = from_sentences(&Arc::from("f"), 1, None, &["Kurz.".into()]);
        into_paragraphs(&mut short, 1000);
        assert_eq!(short.sentence_text(0), "Kurz.");
    }
}
