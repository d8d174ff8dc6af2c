"""Weights of the page ranker (``ranker.py``). Written by ``bench/fit_ranker.py``; do not edit."""

BIAS = 0.0
WEIGHTS: dict[str, float] = {
    "fused": 0.2500,
    "coverage": 1.0000,
    "semantic": 0.0000,
    "page_bm25": 0.2500,
    "chunk_bm25": 0.0000,
    "dense": 0.2500,
    "product": 0.2500,
    "quantity": 0.1000,
    "identifiers": 0.2500,
}
