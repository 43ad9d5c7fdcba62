"""Compares the stored candidates of two projects made from the same input (e.g. by the
build before and after a ranking change): same sentence at every (claim, rank)? how far
apart are the BM25 scores and the fused scores?

Usage: compare_candidates.py BEFORE.fdesk AFTER.fdesk
"""
import sqlite3, sys, json
def load(p):
    c = sqlite3.connect(p)
    cols = [r[1] for r in c.execute("pragma table_info(candidates)")]
    q = "select cl.ext_id, k.rank, k.sentence_id, k.score, " + ("k.bm25, k.scores" if "bm25" in cols else "null, k.scores") + " from candidates k join claims cl on cl.id=k.claim_id"
    out = {}
    for ext, rank, sid, score, bm25, scores in c.execute(q):
        if bm25 is None:
            bm25 = json.loads(scores).get("bm25")
        out[(ext, rank)] = (sid, score, bm25)
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
diff = sum(1 for k in a if k not in b or a[k][0] != b[k][0])
d = [abs((a[k][2] or 0) - (b[k][2] or 0)) / max(1e-9, abs(a[k][2] or 0)) for k in a if k in b and a[k][2] is not None]
print(f"candidates {len(a)} vs {len(b)}; (claim, rank) with another sentence: {diff}; max relative |bm25 diff| {max(d):.1e}; fused score differs: {sum(1 for k in a if k in b and a[k][1] != b[k][1])}")
