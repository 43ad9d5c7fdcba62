//! A guess at the language a claim is written in, good enough to write its trick sentence
//! in the same language: by script first (Arabic, Cyrillic, Devanagari, Han, kana), then,
//! for Latin script, by which language's most common function words it uses. A trick in
//! English among Arabic sentences would give itself away.

use crate::text::{normalize_token, tokens};

/// The languages a trick sentence is written in by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    English,
    French,
    Spanish,
    Portuguese,
    Italian,
    German,
    Russian,
    Arabic,
    Persian,
    Hindi,
    Chinese,
    Japanese,
}

/// Function words that are frequent in one language and rare in the others, written
/// as `normalize_token` gives them.
const FUNCTION_WORDS: &[(Language, &[&str])] = &[
    (
        Language::English,
        &[
            "the", "is", "are", "was", "were", "of", "and", "to", "that", "it", "with", "for",
            "has", "have", "not", "by", "from", "this",
        ],
    ),
    (
        Language::French,
        &[
            "le", "les", "des", "est", "sont", "une", "du", "et", "pour", "dans", "pas", "avec",
            "au", "aux", "été", "sur", "qui", "ce",
        ],
    ),
    (
        Language::Spanish,
        &[
            "el", "los", "las", "es", "son", "del", "y", "para", "por", "con", "fue", "como", "su",
            "al", "más", "está", "pero", "sus",
        ],
    ),
    (
        Language::Portuguese,
        &[
            "o", "os", "um", "é", "são", "do", "da", "dos", "das", "para", "com", "não", "foi",
            "em", "na", "no", "uma", "mais",
        ],
    ),
    (
        Language::Italian,
        &[
            "il", "gli", "è", "sono", "della", "del", "che", "per", "con", "non", "di", "nel",
            "alla", "delle", "una", "anche", "stato", "ha",
        ],
    ),
    (
        Language::German,
        &[
            "der", "die", "das", "und", "ist", "sind", "ein", "eine", "nicht", "mit", "für", "von",
            "den", "dem", "zu", "wurde", "auf", "wird",
        ],
    ),
];

/// The script a character belongs to, for the scripts that name a language here.
fn script(c: char) -> Option<Language> {
    match c {
        // Letters Persian adds to the Arabic alphabet.
        'پ' | 'چ' | 'ژ' | 'گ' | 'ک' | 'ی' => Some(Language::Persian),
        '\u{0600}'..='\u{06FF}'
        | '\u{0750}'..='\u{077F}'
        | '\u{08A0}'..='\u{08FF}'
        | '\u{FB50}'..='\u{FDFF}'
        | '\u{FE70}'..='\u{FEFF}' => Some(Language::Arabic),
        '\u{0400}'..='\u{04FF}' => Some(Language::Russian),
        '\u{0900}'..='\u{097F}' => Some(Language::Hindi),
        '\u{3040}'..='\u{30FF}' => Some(Language::Japanese),
        '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' => Some(Language::Chinese),
        _ => None,
    }
}

/// The language `text` is most likely written in; English when nothing points elsewhere.
pub fn guess(text: &str) -> Language {
    let mut by_script = [0usize; 12];
    let mut letters = 0usize;
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        if let Some(l) = script(c) {
            by_script[l as usize] += 1;
        }
    }
    // Persian letters among Arabic ones make the text Persian; kana among Han, Japanese.
    let arabic = by_script[Language::Arabic as usize] + by_script[Language::Persian as usize];
    let han = by_script[Language::Chinese as usize] + by_script[Language::Japanese as usize];
    let scripts = [
        (
            arabic,
            if by_script[Language::Persian as usize] > 0 {
                Language::Persian
            } else {
                Language::Arabic
            },
        ),
        (
            han,
            if by_script[Language::Japanese as usize] > 0 {
                Language::Japanese
            } else {
                Language::Chinese
            },
        ),
        (by_script[Language::Russian as usize], Language::Russian),
        (by_script[Language::Hindi as usize], Language::Hindi),
    ];
    if let Some(&(n, l)) = scripts.iter().max_by_key(|(n, _)| *n) {
        if n > 0 && 2 * n >= letters {
            return l;
        }
    }
    let words: Vec<String> = tokens(text)
        .iter()
        .map(|t| normalize_token(t.text))
        .collect();
    let mut best = (0, Language::English);
    for (lang, list) in FUNCTION_WORDS {
        let hits = words.iter().filter(|w| list.contains(&w.as_str())).count();
        if hits > best.0 {
            best = (hits, *lang);
        }
    }
    best.1
}

/// "It is not true that {claim}" in `lang`, in a form that takes a plain statement as
/// the claim (a verb of saying before it where the language would otherwise want a
/// different mood or word order).
pub fn negation_template(lang: Language) -> &'static str {
    match lang {
        Language::English => "It is not true that {claim}",
        Language::French => "Il est faux de dire que {claim}",
        Language::Spanish => "Es falso decir que {claim}",
        Language::Portuguese => "É falso dizer que {claim}",
        Language::Italian => "È falso dire che {claim}",
        Language::German => "Es ist falsch zu behaupten: {claim}",
        Language::Russian => "Неправда, что {claim}",
        // إنّ takes a noun after it; its pronoun (إنه) takes a verb or a noun sentence alike.
        Language::Arabic => "من غير الصحيح القول إنه {claim}",
        Language::Persian => "درست نیست که {claim}",
        Language::Hindi => "यह सच नहीं है कि {claim}",
        Language::Chinese => "说{claim}是不对的",
        Language::Japanese => "{claim}というのは事実ではない",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_and_function_words_name_the_language() {
        let cases = [
            (
                "The bridge was opened in 1932 by the mayor.",
                Language::English,
            ),
            (
                "Le pont a été ouvert en 1932 par le maire de la ville.",
                Language::French,
            ),
            (
                "El puente fue abierto en 1932 por el alcalde.",
                Language::Spanish,
            ),
            (
                "A ponte foi aberta em 1932 pelo prefeito da cidade.",
                Language::Portuguese,
            ),
            (
                "Il ponte è stato aperto nel 1932 dal sindaco della città.",
                Language::Italian,
            ),
            (
                "Die Brücke wurde 1932 von dem Bürgermeister eröffnet.",
                Language::German,
            ),
            (
                "Мост был открыт в 1932 году мэром города.",
                Language::Russian,
            ),
            ("افتتح رئيس البلدية الجسر عام 1932.", Language::Arabic),
            ("پل در سال ۱۹۳۲ توسط شهردار افتتاح شد.", Language::Persian),
            ("पुल 1932 में महापौर ने खोला था।", Language::Hindi),
            ("这座桥于1932年由市长开通。", Language::Chinese),
            ("その橋は1932年に市長によって開通した。", Language::Japanese),
            ("COVID-19 vaccines", Language::English),
            ("", Language::English),
        ];
        for (text, lang) in cases {
            assert_eq!(guess(text), lang, "{text}");
        }
    }
}
