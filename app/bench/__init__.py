"""Benchmark datasets, retrieval metrics, the judge and prompt optimisation."""
