"""Weights of the abstention model (``abstention.py``). Written by ``bench/fit_abstention.py``;
do not edit."""

BIAS = -2.6411
WEIGHTS: dict[str, float] = {
    "support": 0.8478,
    "best": 0.4470,
    "quantity": 0.3333,
    "rank_score": 0.9161,
    "salient": 0.9308,
    "asked": 1.0200,
}
ABSTAIN_BELOW = 0.38
HEDGE_BELOW = 0.53
