//! How the search index reads text: core's tokens (the same words ranking sees),
//! normalised, with accents folded.

use factdesk_core::text;
use tantivy::tokenizer::{AsciiFoldingFilter, TextAnalyzer, Token, TokenStream, Tokenizer};

/// The name the shared tokenizer is registered under.
pub(crate) const TOKENIZER: &str = "factdesk";

/// The factdesk tokenizer as tantivy sees it: core's tokens, normalised.
#[derive(Debug, Clone, Default)]
struct SharedTokenizer;

/// Core's tokens of one text, handed out one at a time; the normalised form is written
/// into one reused buffer, since indexing sees tens of millions of tokens.
#[derive(Debug)]
struct SharedTokens<'a> {
    tokens: std::vec::IntoIter<text::Token<'a>>,
    token: Token,
}

impl Tokenizer for SharedTokenizer {
    type TokenStream<'a> = SharedTokens<'a>;
    fn token_stream<'a>(&'a mut self, s: &'a str) -> SharedTokens<'a> {
        SharedTokens {
            tokens: text::tokens(s).into_iter(),
            token: Token::default(),
        }
    }
}

impl TokenStream for SharedTokens<'_> {
    fn advance(&mut self) -> bool {
        let Some(t) = self.tokens.next() else {
            return false;
        };
        self.token.offset_from = t.start;
        self.token.offset_to = t.end;
        self.token.position = self.token.position.wrapping_add(1);
        self.token.text.clear();
        // Most tokens are already normal; for the other ASCII ones normalising is
        // lowercasing, done in place without a string of its own.
        if t.text
            .bytes()
            .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
        {
            self.token.text.push_str(t.text);
        } else if t.text.is_ascii() {
            self.token.text.push_str(t.text);
            self.token.text.make_ascii_lowercase();
        } else {
            self.token.text.push_str(&text::normalize_token(t.text));
        }
        true
    }
    fn token(&self) -> &Token {
        &self.token
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

/// The shared tokenizer with accents folded ("Café" and "cafe" are one word), as the
/// index stores words and as queries and claims are looked up in it. Folding came with
/// layout 5: an older index is rebuilt when it is opened.
pub(crate) fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SharedTokenizer)
        .filter(AsciiFoldingFilter)
        .build()
}

/// A normalised token as the index stores it: accents folded. BM25 scored in memory
/// looks words up by this form, so its statistics are the index's own.
pub(crate) fn indexed_form(normalized: String) -> String {
    if normalized.is_ascii() {
        return normalized;
    }
    let mut folding = TextAnalyzer::builder(tantivy::tokenizer::RawTokenizer::default())
        .filter(AsciiFoldingFilter)
        .build();
    let mut stream = folding.token_stream(&normalized);
    let mut out = String::with_capacity(normalized.len());
    while stream.advance() {
        out.push_str(&stream.token().text);
    }
    out
}
