"""Weights of the abstention model (``abstention.py``). Written by ``bench/fit_abstention.py``;
do not edit."""

BIAS = -1.1007
WEIGHTS: dict[str, float] = {
    "support": 0.0000,
    "best": 0.0000,
    "quantity": 0.0000,
    "rank_score": 0.0000,
    "salient": 0.0000,
    "asked": 1.2542,
}
ABSTAIN_BELOW = 0.4700
HEDGE_BELOW = 0.5329
