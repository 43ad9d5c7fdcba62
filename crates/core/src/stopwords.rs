//! English stop words, dropped before comparing word sets.
//!
//! A compact list of function words (articles, pronouns, auxiliaries, prepositions,
//! common contractions) in the form `text::normalize_token` produces: lower-case with
//! straight apostrophes. Kept sorted so lookup is a binary search without building a set.

const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren't",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "can't",
    "could",
    "did",
    "didn't",
    "do",
    "does",
    "doesn't",
    "doing",
    "don't",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "he's",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "i'm",
    "i've",
    "if",
    "in",
    "into",
    "is",
    "isn't",
    "it",
    "it's",
    "its",
    "itself",
    "just",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "she",
    "she's",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "that's",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "there's",
    "these",
    "they",
    "they're",
    "they've",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "very",
    "via",
    "was",
    "wasn't",
    "we",
    "we're",
    "we've",
    "were",
    "weren't",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "won't",
    "would",
    "yet",
    "you",
    "you're",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Stop words of up to 8 bytes, packed into a `u64` each.
const SHORT: usize = 8;

/// Every group below holds at most this many words; empty places are 0, which no
/// packed word equals.
const GROUP: usize = 8;

/// The stop words longer than `SHORT`, checked one by one.
const LONG: [&str; 3] = ["ourselves", "themselves", "yourselves"];

/// A word's bytes packed big-endian and zero-padded into an integer; words of the same
/// length pack to different integers.
const fn pack(word: &[u8]) -> u64 {
    let mut packed = 0u64;
    let mut i = 0;
    while i < SHORT {
        let byte = if i < word.len() { word[i] } else { 0 };
        packed = (packed << 8) | byte as u64;
        i += 1;
    }
    packed
}

const fn group(first: u8, len: usize) -> usize {
    (first - b'a') as usize * (SHORT + 1) + len
}

/// The short stop words grouped by first letter (all are `a`..=`z`) and length. Stop
/// word tests run once per token of every candidate sentence, where a search over
/// strings was the largest cost of the Jaccard ranker: here a test is one table row and
/// eight integer comparisons without branches.
const TABLE: [[u64; GROUP]; 26 * (SHORT + 1)] = {
    let mut table = [[0; GROUP]; 26 * (SHORT + 1)];
    let mut i = 0;
    while i < STOPWORDS.len() {
        let word = STOPWORDS[i].as_bytes();
        if word.len() <= SHORT {
            let row = &mut table[group(word[0], word.len())];
            let mut place = 0;
            while row[place] != 0 {
                place += 1; // Past the row's end, const evaluation fails the build.
            }
            row[place] = pack(word);
        }
        i += 1;
    }
    table
};

/// Whether `word` is an English stop word: `word` is normalised, except that ASCII
/// letters may be in either case (so callers can skip lower-casing ASCII tokens).
pub(crate) fn is_stopword(word: &str) -> bool {
    let bytes = word.as_bytes();
    match bytes.len() {
        1..=SHORT => {
            let first = bytes[0].to_ascii_lowercase();
            if !first.is_ascii_lowercase() {
                return false;
            }
            // Shifting bytes in, rather than copying them into a buffer read back as one
            // integer, avoids a store-forwarding stall.
            let packed = bytes
                .iter()
                .fold(0u64, |p, &b| (p << 8) | u64::from(b.to_ascii_lowercase()))
                << (8 * (SHORT - bytes.len()));
            TABLE[group(first, bytes.len())]
                .iter()
                .fold(false, |found, &w| found | (w == packed))
        }
        9 | 10 => LONG.iter().any(|w| w.eq_ignore_ascii_case(word)),
        _ => false,
    }
}

/// [`is_stopword`] of an ASCII word of `len` bytes whose lower-cased bytes a caller has
/// already shifted into `packed` one by one (the last 8 of them; the earlier ones shifted
/// out), while reading them for something else.
#[inline]
pub(crate) fn is_ascii_stopword_packed(word: &[u8], packed: u64) -> bool {
    match word.len() {
        len @ 1..=SHORT => {
            let packed = packed << (8 * (SHORT - len));
            let first = (packed >> 56) as u8;
            first.is_ascii_lowercase()
                && TABLE[group(first, len)]
                    .iter()
                    .fold(false, |found, &w| found | (w == packed))
        }
        9 | 10 => LONG.iter().any(|w| w.as_bytes().eq_ignore_ascii_case(word)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_is_sorted_unique_and_normalised() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        for w in STOPWORDS {
            assert_eq!(crate::text::normalize_token(w), *w);
        }
        assert_eq!(STOPWORDS.len(), 156);
        assert!(STOPWORDS
            .iter()
            .all(|w| w.as_bytes()[0].is_ascii_lowercase()));
        let long: Vec<&str> = STOPWORDS
            .iter()
            .copied()
            .filter(|w| w.len() > SHORT)
            .collect();
        assert_eq!(long, LONG);
        assert!(LONG.iter().all(|w| w.len() <= 10));
    }

    #[test]
    fn agrees_with_searching_the_list() {
        let packed = |w: &str| crate::ranking::ascii_word(w.as_bytes()).1;
        for w in STOPWORDS {
            let upper = w.to_ascii_uppercase();
            assert!(packed(w) && packed(&upper), "{w}");
            for other in [
                format!("{w}s"),
                format!("x{w}"),
                format!("{}q", &w[..w.len() - 1]),
            ] {
                assert_eq!(packed(&other), is_stopword(&other), "{other}");
            }
            assert!(is_stopword(w), "{w}");
            assert!(is_stopword(&w.to_ascii_uppercase()), "{w}");
            // Near misses: one letter more, one letter changed.
            let longer = format!("{w}s");
            assert_eq!(
                is_stopword(&longer),
                STOPWORDS.contains(&longer.as_str()),
                "{longer}"
            );
            let changed = format!("{}q", &w[..w.len() - 1]);
            assert_eq!(
                is_stopword(&changed),
                STOPWORDS.contains(&changed.as_str()),
                "{changed}"
            );
        }
    }

    #[test]
    fn finds_function_words_only() {
        for w in [
            "a",
            "the",
            "yourselves",
            "don't",
            "not",
            "The",
            "DON'T",
            "YourSelves",
        ] {
            assert!(is_stopword(w), "{w}");
        }
        for w in [
            "vaccine",
            "",
            "zzz",
            "don’t",
            "a\0",
            "abouts",
            "yourselvesyourselves",
            "été",
            "1",
        ] {
            assert!(!is_stopword(w), "{w}");
        }
    }
}
