//! The hostile annotator holding a pack: strategies that guess the trick from what the
//! pack's bytes show, and the exact verdict on whether any beats chance. Shared by the
//! attackers test and the seed-sweep bench (`cargo bench -p factdesk-api --bench
//! attackers`), so the bench sweeps exactly what CI checks.

use crate::common::{imported, must};
use factdesk_api::annotate::{Item, Passage};
use factdesk_api::import::Preset;
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, Project};
use factdesk_core::chance::{self, Bound};
use std::io::Write;
use std::path::Path;

/// The false-failure probability each attack test allows per run, shared among its
/// strategies (Bonferroni): a test that checks 20 strategies gives each a twentieth.
/// CI runs the api's tests twice (on files, then on PostgreSQL), so each test fails by
/// chance at most once in a million CI runs.
pub const FALSE_FAILURE: f64 = 5e-7;

/// One strategy's record over a pack: its hits, and for each item the probability that
/// a guess hits by chance (one in the item's options while the guess names one of them;
/// 0 for a slot the item does not have).
#[derive(Debug, Clone, Default)]
pub struct Guesser {
    pub name: String,
    pub hits: usize,
    pub chances: Vec<f64>,
}

impl Guesser {
    /// Records one item: the option guessed, the trick's, and how many there were.
    pub fn record(&mut self, guess: usize, truth: usize, options: usize) {
        self.hits += usize::from(guess == truth);
        let chance = if guess < options && options > 0 {
            1.0 / options as f64
        } else {
            0.0
        };
        self.chances.push(chance);
    }
}

/// A guesser's hits beside the most chance gives at its share of the false-failure
/// probability.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub name: String,
    pub hits: usize,
    pub bound: Bound,
}

impl Verdict {
    pub fn beats_chance(&self) -> bool {
        self.hits > self.bound.count
    }
}

/// Each guesser against the exact tail of its hit count under chance, at `alpha` shared
/// equally among them.
pub fn judge(guessers: &[Guesser], alpha: f64) -> Vec<Verdict> {
    let share = alpha / guessers.len().max(1) as f64;
    guessers
        .iter()
        .map(|g| Verdict {
            name: g.name.clone(),
            hits: g.hits,
            bound: chance::bound(&g.chances, share),
        })
        .collect()
}

/// The probability that chance alone makes any of `verdicts` fail: at most the sum of
/// each one's exact tail (Bonferroni).
pub fn false_failure(verdicts: &[Verdict]) -> f64 {
    verdicts.iter().map(|v| v.bound.false_alarm).sum()
}

/// The items and passages of a pack, read from its bytes alone as an attacker would.
pub fn pack_contents(path: &Path) -> Vec<(Item, Vec<Passage>)> {
    let conn = must(rusqlite::Connection::open(path));
    let mut stmt = must(conn.prepare("SELECT task_id, item FROM items ORDER BY position"));
    let items: Vec<(i64, String)> =
        must(must(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))).collect::<Result<_, _>>());
    items
        .into_iter()
        .map(|(task, text)| {
            let item: Item = must(serde_json::from_str(&text));
            let passages = item
                .options
                .iter()
                .map(|o| {
                    let text: String = must(conn.query_row(
                        "SELECT passage FROM passages WHERE task_id = ?1 AND option_id = ?2",
                        rusqlite::params![task, o.id],
                        |r| r.get(0),
                    ));
                    must(serde_json::from_str(&text))
                })
                .collect();
            (item, passages)
        })
        .collect()
}

/// The most options any item of the packs shows: how many fixed slots to guess.
pub const SLOTS: usize = 6;

/// Strategies that read only the pack's structure: a fixed slot, the smallest or largest
/// option id, the longest or shortest passage, the passage whose marked sentence sits
/// first or last. Each returns the index of the option it calls the trick.
pub fn structural_guesses(item: &Item, passages: &[Passage]) -> Vec<(String, usize)> {
    let n = item.options.len();
    let mut guesses: Vec<(String, usize)> = (0..SLOTS).map(|k| (format!("slot {k}"), k)).collect();
    let by = |f: &dyn Fn(usize) -> i64| -> usize {
        (0..n).max_by_key(|&i| (f(i), -(i as i64))).unwrap_or(0)
    };
    let ids: Vec<&String> = item.options.iter().map(|o| &o.id).collect();
    guesses.push((
        "smallest id".into(),
        (0..n).min_by_key(|&i| ids[i]).unwrap_or(0),
    ));
    guesses.push((
        "largest id".into(),
        (0..n).max_by_key(|&i| ids[i]).unwrap_or(0),
    ));
    guesses.push((
        "longest passage".into(),
        by(&|i| passages[i].sentences.len() as i64),
    ));
    guesses.push((
        "shortest passage".into(),
        by(&|i| -(passages[i].sentences.len() as i64)),
    ));
    let hit_at = |i: usize| {
        passages[i]
            .sentences
            .iter()
            .position(|s| s.hit)
            .unwrap_or(0) as i64
    };
    guesses.push(("marked first".into(), by(&|i| -hit_at(i))));
    guesses.push(("marked last".into(), by(&|i| hit_at(i))));
    // A passage that is another option's passage with one sentence more marked in it.
    let texts = |i: usize, keep_hit: bool| -> Vec<&str> {
        passages[i]
            .sentences
            .iter()
            .filter(|s| keep_hit || !s.hit)
            .map(|s| s.text.as_str())
            .collect()
    };
    let copied = (0..n)
        .find(|&i| (0..n).any(|j| j != i && texts(i, false) == texts(j, true)))
        .unwrap_or(0);
    guesses.push(("another's passage plus one".into(), copied));
    // The option with the fewest words marked as shared with the claim (a trick that
    // shares none stands out while highlighting is on).
    let marked = |i: usize| item.options[i].pieces.iter().filter(|p| p.hit).count() as i64;
    guesses.push(("fewest marked words".into(), by(&|i| -marked(i))));
    // The option whose passage names a document no other option's passage names (the
    // trick under `supports_or_refutes` comes from an unrelated document).
    let title = |i: usize| passages[i].title.as_deref();
    let odd_title = (0..n)
        .find(|&i| title(i).is_some() && (0..n).all(|j| j == i || title(j) != title(i)))
        .unwrap_or(0);
    guesses.push(("odd title out".into(), odd_title));
    // Options from one document share neighbours in their passages: the option whose
    // passage shares the fewest (or most) sentences with the others', and the one that
    // shares any with the fewest (or most) other options (issue 31, item 1).
    let shared = passage_sharing(passages);
    guesses.push((
        "least passage overlap".into(),
        by(&|i| -(shared[i].0 as i64)),
    ));
    guesses.push(("most passage overlap".into(), by(&|i| shared[i].0 as i64)));
    guesses.push((
        "fewest passage partners".into(),
        by(&|i| -(shared[i].1 as i64)),
    ));
    guesses.push(("most passage partners".into(), by(&|i| shared[i].1 as i64)));
    // An option whose passage shows exactly another option's neighbours (a trick placed
    // beside a candidate would have such a twin every time).
    let twin = (0..n)
        .find(|&i| (0..n).any(|j| j != i && texts(i, false) == texts(j, false)))
        .unwrap_or(0);
    guesses.push(("same neighbours as another".into(), twin));
    // The option text's own length (the trick is drawn among sentences about as long as
    // the claim's candidates).
    let chars = |i: usize| item.options[i].text.chars().count() as i64;
    guesses.push(("longest option".into(), by(&|i| chars(i))));
    guesses.push(("shortest option".into(), by(&|i| -chars(i))));
    guesses
}

/// Strategies that read the options' words, as a reader does: the option sharing the
/// fewest (or most) of the claim's words, counted from the texts alone (highlighting
/// off). Under `supports_or_refutes` the trick shares none by design, so that a careful
/// reader sees it does not belong; these measure that tell rather than guard against it
/// (docs/annotation.md).
pub fn content_guesses(item: &Item, _passages: &[Passage]) -> Vec<(String, usize)> {
    let n = item.options.len();
    let claim = content_words(&item.claim);
    let shared = |i: usize| {
        content_words(&item.options[i].text)
            .intersection(&claim)
            .count() as i64
    };
    let by = |f: &dyn Fn(usize) -> i64| -> usize {
        (0..n).max_by_key(|&i| (f(i), -(i as i64))).unwrap_or(0)
    };
    vec![
        ("fewest claim words".into(), by(&|i| -shared(i))),
        ("most claim words".into(), by(&|i| shared(i))),
    ]
}

/// A text's lower-cased words of three letters or more, as a script would split them.
fn content_words(text: &str) -> std::collections::HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

/// For each option: how many of its passage's unmarked sentences appear in another
/// option's passage, and with how many other options its passage shares any.
fn passage_sharing(passages: &[Passage]) -> Vec<(usize, usize)> {
    let unmarked: Vec<std::collections::HashSet<&str>> = passages
        .iter()
        .map(|p| {
            p.sentences
                .iter()
                .filter(|s| !s.hit)
                .map(|s| s.text.as_str())
                .collect()
        })
        .collect();
    (0..passages.len())
        .map(|i| {
            let others = |j: usize| j != i;
            let sentences = unmarked[i]
                .iter()
                .filter(|t| (0..passages.len()).any(|j| others(j) && unmarked[j].contains(*t)))
                .count();
            let partners = (0..passages.len())
                .filter(|&j| others(j) && !unmarked[i].is_disjoint(&unmarked[j]))
                .count();
            (sentences, partners)
        })
        .collect()
}

/// The trick option of a pack's item, found through the lead's project by the item's
/// claim text (a pack's task ids are its own): the trick of a claim of that text that
/// the item shows (COVID-Fact repeats some claims word for word).
pub fn stored_trick(lead: &Project, item: &Item) -> Option<String> {
    let conn = lead.store().read();
    let mut stmt = conn
        .prepare(
            "SELECT s.text FROM task_tricks t JOIN tasks k ON k.id = t.task_id
             JOIN claims c ON c.id = k.claim_id JOIN sentences s ON s.id = t.sentence_id
             WHERE c.text = ?1",
        )
        .ok()?;
    let texts: Vec<String> = stmt
        .query_map([&item.claim], |r| r.get(0))
        .ok()?
        .filter_map(Result::ok)
        .collect();
    item.options
        .iter()
        .find(|o| texts.contains(&o.text))
        .map(|o| o.id.clone())
}

/// How a family of strategies guesses on one item.
pub type Guesses = fn(&Item, &[Passage]) -> Vec<(String, usize)>;

/// Every strategy of `guesses`, recorded over the pack at `path`, the truth taken from
/// the lead's project.
pub fn trick_attack(lead: &Project, path: &Path, guesses: Guesses) -> Vec<Guesser> {
    let contents = pack_contents(path);
    let all = contents.iter().map(|(item, p)| guesses(item, p)).collect();
    record(lead, &contents, all)
}

/// Each strategy's record over `contents`, where `all[k]` holds each strategy's guess on
/// item `k`, the truth taken from the lead's project.
fn record(
    lead: &Project,
    contents: &[(Item, Vec<Passage>)],
    all: Vec<Vec<(String, usize)>>,
) -> Vec<Guesser> {
    let mut guessers: Vec<Guesser> = Vec::new();
    for ((item, _), guesses) in contents.iter().zip(all) {
        let trick = stored_trick(lead, item).unwrap_or_else(|| panic!("no trick"));
        let truth = item
            .options
            .iter()
            .position(|o| o.id == trick)
            .unwrap_or_else(|| panic!("the trick is not among the options"));
        if guessers.is_empty() {
            guessers = guesses
                .iter()
                .map(|(name, _)| Guesser {
                    name: name.clone(),
                    ..Default::default()
                })
                .collect();
        }
        for (g, (_, guess)) in guessers.iter_mut().zip(guesses) {
            g.record(guess, truth, item.options.len());
        }
    }
    guessers
}

/// A made-up word, different for every `seed`: projects whose claims share no word, so
/// every claim has real sentences of other claims' documents to take its trick from.
pub fn word(seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    let consonants = b"bdfgklmnprstvz";
    let vowels = b"aeiou";
    (0..7)
        .map(|i| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let r = (x >> 33) as usize;
            if i % 2 == 0 {
                consonants[r % consonants.len()] as char
            } else {
                vowels[r % vowels.len()] as char
            }
        })
        .collect()
}

/// A project of `n` claims on made-up topics, each with a titled document of eight
/// sentences, with no stance chosen (served as `supports_or_refutes`).
pub fn project_of_distinct_topics(dir: &Path, n: usize, clock: &ManualClock) -> Project {
    let docs = dir.join("topics-docs.jsonl");
    let claims = dir.join("topics-claims.jsonl");
    let mut d = must(std::fs::File::create(&docs));
    let mut c = must(std::fs::File::create(&claims));
    for i in 0..n as u64 {
        let w = |k: u64| word(i * 100 + k);
        let sentence = |a: u64, b: u64, c: u64| {
            let first = w(a);
            let mut chars = first.chars();
            let head: String = chars
                .next()
                .map(|x| x.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
                .collect();
            format!("{head} {} the {} in {}.", w(b), w(c), w(a + b + c))
        };
        let text: Vec<String> = (0..8).map(|k| sentence(k, k + 10, k + 20)).collect();
        let doc = serde_json::json!({"id": format!("d{i}"), "title": format!("The {} papers", w(40)), "text": text.join(" ")});
        must(writeln!(d, "{doc}"));
        let claim = format!("{} {} the {} in {}", w(0), w(10), w(20), w(30));
        let row = serde_json::json!({"id": format!("c{i}"), "claim": claim, "doc_ids": [format!("d{i}")]});
        must(writeln!(c, "{row}"));
    }
    imported(
        dir,
        "topics.fdesk",
        clock,
        claims,
        Some(docs),
        Preset::Native,
    )
}

/// A project of WikiFactCheck's first `pages * 5` claims, every five rows' contexts
/// joined into one titled page (about 18 real sentences) that those five claims point
/// to, with no stance chosen (served as `supports_or_refutes`): real-shaped documents
/// where a claim's candidates share a page and the trick comes from another.
pub fn project_of_wikifactcheck_pages(dir: &Path, pages: usize, clock: &ManualClock) -> Project {
    let mut reader = must(
        csv::ReaderBuilder::new()
            .delimiter(b'\t')
            .from_path(crate::common::data("wikifactcheck_dev.tsv")),
    );
    let headers = must(reader.headers()).clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("wikifactcheck_dev.tsv has no {name} column"))
    };
    let (context, claim) = (column("context"), column("claim"));
    let rows: Vec<csv::StringRecord> = reader.records().take(pages * 5).map(must).collect();
    let docs = dir.join("wfc-docs.jsonl");
    let claims = dir.join("wfc-claims.jsonl");
    let mut d = must(std::fs::File::create(&docs));
    let mut c = must(std::fs::File::create(&claims));
    for (page, five) in rows.chunks(5).enumerate() {
        let text: Vec<&str> = five.iter().map(|r| r.get(context).unwrap_or("")).collect();
        let doc = serde_json::json!({"id": format!("p{page}"), "title": format!("Page {page}"), "text": text.join(" ")});
        must(writeln!(d, "{doc}"));
        for (k, row) in five.iter().enumerate() {
            let line = serde_json::json!({"id": format!("w{page}-{k}"), "claim": row.get(claim).unwrap_or(""), "doc_ids": [format!("p{page}")]});
            must(writeln!(c, "{line}"));
        }
    }
    imported(dir, "wfc.fdesk", clock, claims, Some(docs), Preset::Native)
}

/// The annotator the attacked packs are issued to.
pub const HOLDER: &str = "Wendeline";

/// A pack of up to `count` items of `kind` for [`HOLDER`] (added as an annotator),
/// written into `dir`.
pub fn pack_for_holder(
    lead: &mut Project,
    dir: &Path,
    kind: factdesk_api::tasks::TaskKind,
    count: u64,
) -> std::path::PathBuf {
    use crate::common::Acting;
    let owner = lead.lead();
    must(lead.add_annotator(&owner, HOLDER, factdesk_api::annotators::Role::Annotator));
    let path = dir.join(format!("{}.fdpack", kind.as_str()));
    let req = factdesk_api::packs::PackRequest {
        annotator: HOLDER.into(),
        count,
        kind: Some(kind),
        expires_days: 7,
    };
    must(lead.issue_pack(&owner, &req, &path));
    path
}

/// One line per strategy: hits, what chance gives on average and at most.
pub fn table(verdicts: &[Verdict]) -> String {
    verdicts
        .iter()
        .map(|v| {
            format!(
                "  {:<28} {:>4} hits (chance {:.1}, at most {} at p {:.1e})",
                v.name, v.hits, v.bound.expected, v.bound.count, v.bound.false_alarm
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Strategies that read many items together, as an attacker keeping a whole pack does:
/// the first option whose text another item shows too (as an option, in a passage, or
/// either, or next to a neighbour its own passage gives it), and the first whose text no
/// other item shows so (hostile pass of session 22: the trick was
/// another claim's candidate, so its text was shown twice). For each item, the options
/// each guess names.
pub fn cross_item_guesses(contents: &[(Item, Vec<Passage>)]) -> Vec<Vec<(String, usize)>> {
    use std::collections::{HashMap, HashSet};
    // Which items show each text, as an option and in a passage.
    let mut as_option: HashMap<&str, HashSet<usize>> = HashMap::new();
    let mut in_passage: HashMap<&str, HashSet<usize>> = HashMap::new();
    for (k, (item, passages)) in contents.iter().enumerate() {
        for o in &item.options {
            as_option.entry(o.text.as_str()).or_default().insert(k);
        }
        for s in passages.iter().flat_map(|p| &p.sentences) {
            in_passage.entry(s.text.as_str()).or_default().insert(k);
        }
    }
    // Which items show each two sentences next to each other in a passage.
    let mut side_by_side: HashMap<(&str, &str), HashSet<usize>> = HashMap::new();
    for (k, (_, passages)) in contents.iter().enumerate() {
        for p in passages {
            for pair in p.sentences.windows(2) {
                side_by_side
                    .entry((pair[0].text.as_str(), pair[1].text.as_str()))
                    .or_default()
                    .insert(k);
            }
        }
    }
    let elsewhere = |map: &HashMap<&str, HashSet<usize>>, text: &str, k: usize| {
        map.get(text)
            .is_some_and(|items| items.iter().any(|&j| j != k))
    };
    // Whether another item shows option `o` of item `k` next to a neighbour its own
    // passage gives it (hostile pass of session 19: the trick's neighbours are borrowed,
    // so no other item shows it beside them).
    let beside_elsewhere = |k: usize, o: usize| {
        let Some(passage) = contents[k].1.get(o) else {
            return false;
        };
        let s = &passage.sentences;
        let Some(at) = s.iter().position(|x| x.hit) else {
            return false;
        };
        let me = s[at].text.as_str();
        let mut pairs = Vec::new();
        if at > 0 {
            pairs.push((s[at - 1].text.as_str(), me));
        }
        if let Some(next) = s.get(at + 1) {
            pairs.push((me, next.text.as_str()));
        }
        pairs.iter().any(|pair| {
            side_by_side
                .get(pair)
                .is_some_and(|items| items.iter().any(|&j| j != k))
        })
    };
    contents
        .iter()
        .enumerate()
        .map(|(k, (item, _))| {
            let first = |f: &dyn Fn(&str) -> bool| {
                item.options.iter().position(|o| f(&o.text)).unwrap_or(0)
            };
            let option = |t: &str| elsewhere(&as_option, t, k);
            let passage = |t: &str| elsewhere(&in_passage, t, k);
            vec![
                ("an option elsewhere".into(), first(&option)),
                ("no option elsewhere".into(), first(&|t| !option(t))),
                ("in a passage elsewhere".into(), first(&passage)),
                ("in no passage elsewhere".into(), first(&|t| !passage(t))),
                (
                    "shown elsewhere".into(),
                    first(&|t| option(t) || passage(t)),
                ),
                (
                    "shown nowhere else".into(),
                    first(&|t| !option(t) && !passage(t)),
                ),
                (
                    "beside its neighbours elsewhere".into(),
                    (0..item.options.len())
                        .find(|&o| beside_elsewhere(k, o))
                        .unwrap_or(0),
                ),
                (
                    "beside them nowhere else".into(),
                    (0..item.options.len())
                        .find(|&o| !beside_elsewhere(k, o))
                        .unwrap_or(0),
                ),
            ]
        })
        .collect()
}

/// [`cross_item_guesses`] recorded over the pack at `path`, the truth taken from the
/// lead's project.
pub fn cross_item_attack(lead: &Project, path: &Path) -> Vec<Guesser> {
    let contents = pack_contents(path);
    let all = cross_item_guesses(&contents);
    record(lead, &contents, all)
}
