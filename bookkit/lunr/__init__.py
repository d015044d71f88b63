"""The search index format, below every stage: lunr.js's tokeniser, stemmer and BM25 scores
ported (`index.py`) and the CJK folding table (`cjk.py`). The search output builds an index with
it; the site check reads one back with it."""
