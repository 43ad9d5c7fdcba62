"""Stemmed Jaccard between two texts, computed apart from Factdesk, as CrowdChecked
compared claim-tweet pairs: web addresses and numbers each one word, English stop words
dropped, the rest lower-cased and stemmed with the Snowball English ("Porter 2") stemmer
of the snowballstemmer package. Reads a JSON list of [a, b] pairs on standard input and
prints the list of their Jaccard values.

Usage: python3 stemmed_jaccard.py STOPWORDS_RS < pairs.json
STOPWORDS_RS: Factdesk's list of stop words (crates/core/src/stopwords.rs), the one
parameter shared with the code under test.
"""

import json
import re
import sys

import snowballstemmer

JOINERS = "'\u2019-\u2010\u2011"


def is_alnum(c):
    return c.isalpha() or c.isnumeric()


def is_combining(c):
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in (
        (0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F)))


def tokens(text):
    """Runs of letters and digits; an apostrophe or hyphen between two of them, or a
    period or comma between two digits, keeps the word whole."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        i += 1
        if not is_alnum(c):
            continue
        start, prev = i - 1, c
        while i < n:
            d = text[i]
            if is_alnum(d):
                i += 1
                prev = d
                continue
            if is_combining(d):
                i += 1
                continue
            after = text[i + 1] if i + 1 < n else " "
            if d in JOINERS:
                joins = is_alnum(after)
            elif d in ".," and prev.isascii() and prev.isdigit():
                joins = after.isascii() and after.isdigit()
            else:
                joins = False
            if not joins:
                break
            i += 1
        out.append(text[start:i])
    return out


def is_url(piece):
    piece = piece.lstrip()
    while piece and not is_alnum(piece[0]):
        piece = piece[1:]
    head = piece[:8].lower()
    return head.startswith(("http://", "https://", "www."))


def is_number(token):
    return token[0].isnumeric() and all(c.isnumeric() or c in ".," for c in token)


def words(text, stop, stemmer):
    out = set()
    for piece in text.split():
        if is_url(piece):
            out.add("<url>")
            continue
        for token in tokens(piece):
            if is_number(token):
                out.add("<number>")
                continue
            word = re.sub("[\u2019\u2018\u02bc]", "'", token).lower()
            if word not in stop:
                out.add(stemmer.stemWord(word))
    return out


def main():
    source = open(sys.argv[1], encoding="utf-8").read()
    listed = source.split("const STOPWORDS: &[&str] = &[", 1)[1].split("];", 1)[0]
    stop = set(re.findall(r'"([^"]*)"', listed))
    assert len(stop) > 100, "no stop words read"
    stemmer = snowballstemmer.stemmer("english")
    values = []
    for a, b in json.load(sys.stdin):
        wa, wb = words(a, stop, stemmer), words(b, stop, stemmer)
        union = wa | wb
        values.append(len(wa & wb) / len(union) if union else 0.0)
    json.dump(values, sys.stdout)


main()
