"""Weights of the page ranker (``ranker.py``). Written by ``bench/fit_ranker.py``; do not edit."""

BIAS = 0.0
WEIGHTS: dict[str, float] = {
    "fused": 0.3,
    "coverage": 0.45,
    "semantic": 0.5,
    "page_bm25": 0.0,
    "chunk_bm25": 0.0,
    "dense": 0.0,
    "product": 0.2,
    "quantity": 0.0,
    "identifiers": 0.0,
}
