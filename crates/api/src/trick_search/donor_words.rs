//! The donor sentences of a run and their words, read as their rows stream out of the
//! store: the rows go in batches to threads that read the words, so the store's read
//! and the words' reading overlap, and no sentence's text is kept once its words are.

use super::signature::word_hash;
use factdesk_core::trick;
use factdesk_store::tricks::{self, Corpus, Donor, Families, RankedSentence};
use std::collections::HashSet;
use std::sync::{mpsc, Mutex};

/// Sentences a batch sent to a words thread holds.
const BATCH: usize = 8192;

/// The words of a run of sentences.
#[derive(Debug)]
pub(super) struct Read {
    /// Each sentence's word hashes, sorted, from `hashes_at[k]` to `hashes_at[k + 1]`.
    hashes: Vec<u64>,
    hashes_at: Vec<usize>,
    /// Each sentence's markable words, each followed by a space.
    pub marks: String,
    pub marks_at: Vec<usize>,
}

impl Default for Read {
    fn default() -> Read {
        Read {
            hashes: Vec::new(),
            hashes_at: vec![0],
            marks: String::new(),
            marks_at: vec![0],
        }
    }
}

impl Read {
    /// Reads the words of the next sentence, `text`.
    fn push(&mut self, text: &str) {
        let from = self.hashes.len();
        trick::each_content_word(text, |w| {
            let h = word_hash(w);
            // A word once, however often the sentence says it.
            if self.hashes[from..].contains(&h) {
                return;
            }
            self.hashes.push(h);
            if trick::markable(w) {
                self.marks.push_str(w);
                self.marks.push(' ');
            }
        });
        self.hashes[from..].sort_unstable();
        self.hashes_at.push(self.hashes.len());
        self.marks_at.push(self.marks.len());
    }

    /// How many sentences it holds.
    pub fn len(&self) -> usize {
        self.hashes_at.len() - 1
    }

    pub fn hashes(&self, k: usize) -> &[u64] {
        &self.hashes[self.hashes_at[k]..self.hashes_at[k + 1]]
    }
}

/// A batch of texts: one string, each text ending at its `ends` entry.
#[derive(Debug, Default)]
struct Texts {
    all: String,
    ends: Vec<usize>,
}

impl Texts {
    fn read(&self) -> Read {
        let mut read = Read::default();
        let mut from = 0;
        for &end in &self.ends {
            read.push(&self.all[from..end]);
            from = end;
        }
        read
    }
}

/// A run's donor sentences, in id order, and their words: `reads` hold them in order, in
/// runs of any length. With them, the sentences already some task's trick.
#[derive(Debug, Default)]
pub(crate) struct DonorWords {
    pub donors: Vec<Donor>,
    pub(super) reads: Vec<Read>,
    /// The text hashes of the sentences already some task's trick.
    pub taken: HashSet<u64>,
    /// Every claim's candidates, ordered by claim, and every claim's family: with the
    /// donors, what each claim's facts are taken from ([`DonorWords::corpus`]).
    ranked: Vec<RankedSentence>,
    families: Families,
}

impl DonorWords {
    /// The run's corpus: its donors, candidates and families.
    pub fn corpus(&self) -> Corpus<'_> {
        Corpus::new(&self.donors, &self.ranked, &self.families)
    }

    /// Every sentence of the project and its words, on every core, with how many items
    /// show it (evidence items of claims without a parent, and of every claim when
    /// `children` is set).
    pub fn read(conn: &factdesk_store::Read, children: bool) -> factdesk_store::Result<DonorWords> {
        let ranked = tricks::candidates(conn, children)?;
        let workers = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let (tx, rx) = mpsc::sync_channel::<(usize, Texts)>(2 * workers);
        let rx = Mutex::new(rx);
        std::thread::scope(|s| {
            let threads: Vec<_> = (0..workers)
                .map(|_| {
                    let rx = &rx;
                    s.spawn(move || {
                        let mut out = Vec::new();
                        loop {
                            // A poisoned lock only says another words thread panicked,
                            // which its join raises again.
                            let next = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                            let Ok((k, texts)) = next else { break };
                            out.push((k, texts.read()));
                        }
                        out
                    })
                })
                .collect();
            let mut donors = Vec::new();
            let (mut batch, mut sent) = (Texts::default(), 0);
            let read = tricks::each_donor(conn, |donor, text| {
                donors.push(donor);
                batch.all.push_str(text);
                batch.ends.push(batch.all.len());
                if batch.ends.len() == BATCH {
                    // Fails only when every words thread is gone, which their joins raise.
                    let _ = tx.send((sent, std::mem::take(&mut batch)));
                    sent += 1;
                }
            });
            if !batch.ends.is_empty() {
                let _ = tx.send((sent, batch));
            }
            drop(tx);
            let mut reads: Vec<(usize, Read)> = threads
                .into_iter()
                .flat_map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect();
            read?;
            reads.sort_unstable_by_key(|(k, _)| *k);
            super::exposure::mark(&mut donors, &ranked);
            let taken = tricks::trick_sentences(conn)?
                .into_iter()
                .filter_map(|id| {
                    let at = donors.binary_search_by_key(&id, |d| d.sentence_id).ok()?;
                    Some(donors[at].text_hash)
                })
                .collect();
            Ok(DonorWords {
                donors,
                reads: reads.into_iter().map(|(_, r)| r).collect(),
                taken,
                ranked,
                families: Families::read(conn)?,
            })
        })
    }

    /// The donors `(sentence id, document id, text, items showing it)`, their words read
    /// here: each item shows it as an option.
    #[cfg(test)]
    pub fn of(sentences: &[(i64, i64, &str, u32)]) -> DonorWords {
        let mut read = Read::default();
        let donors = sentences
            .iter()
            .map(|&(id, document, text, shown)| {
                read.push(text);
                Donor {
                    options: shown,
                    shown,
                    ..Donor::of(id, document, text)
                }
            })
            .collect();
        DonorWords {
            donors,
            reads: vec![read],
            taken: HashSet::new(),
            ranked: Vec::new(),
            families: Families::default(),
        }
    }
}
