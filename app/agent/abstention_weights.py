"""Weights of the abstention model (``abstention.py``). Written by ``bench/fit_abstention.py``;
do not edit."""

BIAS = -1.6531
WEIGHTS: dict[str, float] = {
    "support": 0.9862,
    "best": 0.4898,
    "quantity": 0.0003,
    "rank_score": 0.6822,
    "salient": 0.6509,
}
ABSTAIN_BELOW = 0.36
HEDGE_BELOW = 0.51
