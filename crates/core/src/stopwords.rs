//! English stop words, dropped before comparing word sets.
//!
//! A compact list of function words (articles, pronouns, auxiliaries, prepositions,
//! common contractions) in the form `text::normalize_token` produces: lower-case with
//! straight apostrophes. Kept sorted so lookup is a binary search without building a set.

const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and",
    "any", "are", "aren't", "as", "at", "be", "because", "been", "before", "being",
    "below", "between", "both", "but", "by", "can", "can't", "could", "did", "didn't",
    "do", "does", "doesn't", "doing", "don't", "down", "during", "each", "few", "for",
    "from", "further", "had", "has", "have", "having", "he", "he's", "her", "here", "hers",
    "herself", "him", "himself", "his", "how", "i", "i'm", "i've", "if", "in", "into",
    "is", "isn't", "it", "it's", "its", "itself", "just", "may", "me", "might", "more",
    "most", "must", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once",
    "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same",
    "shall", "she", "she's", "should", "so", "some", "such", "than", "that", "that's",
    "the", "their", "theirs", "them", "themselves", "then", "there", "there's", "these",
    "they", "they're", "they've", "this", "those", "through", "to", "too", "under",
    "until", "up", "upon", "us", "very", "via", "was", "wasn't", "we", "we're", "we've",
    "were", "weren't", "what", "when", "where", "which", "while", "who", "whom", "why",
    "will", "with", "won't", "would", "yet", "you", "you're", "your", "yours", "yourself",
    "yourselves",
];

/// The longest stop word fits in 16 bytes, so each packs into one `u128`.
const PACKED_LEN: usize = 16;

/// Stop words are grouped by first letter (all are `a`..=`z`) and length; a group holds
/// at most a handful, so a lookup is a few integer comparisons. Stop word tests run once
/// per token of every candidate sentence, and a binary search over strings was the
/// largest cost of the Jaccard ranker.
const GROUPS: usize = 26 * (PACKED_LEN + 1);

const fn group(word: &[u8]) -> usize {
    (word[0] - b'a') as usize * (PACKED_LEN + 1) + word.len()
}

/// A word's bytes packed big-endian and zero-padded into an integer; words of the same
/// length pack to different integers.
const fn pack(word: &[u8]) -> u128 {
    let mut packed = 0u128;
    let mut i = 0;
    while i < PACKED_LEN {
        let byte = if i < word.len() { word[i] } else { 0 };
        packed = (packed << 8) | byte as u128;
        i += 1;
    }
    packed
}

/// The packed stop words ordered by group, and where each group starts in that order.
const INDEX: ([usize; GROUPS + 1], [u128; STOPWORDS.len()]) = {
    let mut starts = [0; GROUPS + 1];
    let mut packed = [0; STOPWORDS.len()];
    let mut next = 0;
    let mut g = 0;
    while g < GROUPS {
        starts[g] = next;
        let mut i = 0;
        while i < STOPWORDS.len() {
            let word = STOPWORDS[i].as_bytes();
            if group(word) == g {
                packed[next] = pack(word);
                next += 1;
            }
            i += 1;
        }
        g += 1;
    }
    starts[GROUPS] = next;
    (starts, packed)
};

/// Whether `word`, already normalised, is an English stop word.
pub(crate) fn is_stopword(word: &str) -> bool {
    let bytes = word.as_bytes();
    match bytes.first() {
        Some(first) if first.is_ascii_lowercase() && bytes.len() <= PACKED_LEN => {}
        _ => return false,
    }
    let mut buffer = [0; PACKED_LEN];
    buffer[..bytes.len()].copy_from_slice(bytes);
    let packed = u128::from_be_bytes(buffer);
    let (starts, words) = &INDEX;
    let g = group(bytes);
    words[starts[g]..starts[g + 1]].contains(&packed)
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
        assert!(STOPWORDS.iter().all(|w| w.len() <= PACKED_LEN && w.as_bytes()[0].is_ascii_lowercase()));
        // Every word landed in the index, and groups stay small.
        assert_eq!(INDEX.0[GROUPS], STOPWORDS.len());
        assert!(INDEX.0.windows(2).all(|w| w[1] - w[0] <= 8));
    }

    #[test]
    fn finds_function_words_only() {
        for w in ["a", "the", "yourselves", "don't", "not"] {
            assert!(is_stopword(w), "{w}");
        }
        for w in ["vaccine", "The", "", "zzz", "don’t", "a\0", "abouts", "yourselvesyourselves"] {
            assert!(!is_stopword(w), "{w}");
        }
    }
}
