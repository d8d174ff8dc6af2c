"""Weights of the page ranker (``ranker.py``). Written by ``bench/fit_ranker.py``; do not edit."""

BIAS = 0.0
WEIGHTS: dict[str, float] = {
    "fused": 0.2504,
    "coverage": 1.0000,
    "semantic": 0.4472,
    "page_bm25": 0.2216,
    "chunk_bm25": 0.0020,
    "dense": 0.2095,
    "product": 0.2339,
    "quantity": 0.1462,
    "identifiers": 0.1086,
}
