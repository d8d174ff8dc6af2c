"""Which manual's word counts when manuals disagree: revision and model precedence.

A newer revision of a manual takes precedence over an older one, and the manual of the
exact model the question names over a manual for the model's family ("AX-200 series",
or a product name that is only the start of the model's code). ``SourceInfo`` describes
each numbered evidence page that way, for the critic's prompt, and ``precedence_problems``
lists the claims that cite a lesser source while a better one is among the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.agent.critic import Claim

_CODE = re.compile(r"\b[A-Za-z]{1,6}[- ]?\d{2,6}[A-Za-z]{0,3}\b")
_FAMILY = re.compile(r"\b(series|family|range|models)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """What an evidence page's manual is: its revision, and whether it is the exact
    model's manual or a family manual."""

    number: int
    document_id: int
    label: str  # "Installation Guide p.12"
    revision: int = 1
    revisions: int = 1
    exact: bool | None = None  # None: the question names no model, or the manual none
    manual_id: int = 0

    @property
    def newest(self) -> bool:
        return self.revision >= self.revisions

    def describe(self) -> str:
        parts = [
            f"revision {self.revision} of {self.revisions}"
            + (" (newest)" if self.newest else " (superseded)")
        ]
        if self.exact is not None:
            parts.append("manual of the exact model" if self.exact else "family manual")
        return f"[{self.number}] {self.label}: " + ", ".join(parts)


def model_codes(text: str) -> set[str]:
    """Model codes in a text ("AX-200", "AX200S"), normalised (upper case, no separator)."""
    return {re.sub(r"[- ]", "", m.group(0)).upper() for m in _CODE.finditer(text)}


def is_exact(question: str, product: str) -> bool | None:
    """Whether a manual for ``product`` is the exact model's manual for ``question``;
    None when either names no model code."""
    asked, made = model_codes(question), model_codes(product)
    if not asked or not made:
        return None
    if _FAMILY.search(product):
        return False
    return bool(asked & made)


def sources(
    question: str, numbered: Sequence[tuple[int, int, str]], store: Any, products: Mapping[int, str]
) -> list[SourceInfo]:
    """SourceInfo for each (number, document id, label) of the evidence."""
    from app.library.revisions import revision_of

    out = []
    for number, document_id, label in numbered:
        revision = revision_of(store, document_id)
        exact = is_exact(question, products.get(document_id, ""))
        out.append(
            SourceInfo(
                number,
                document_id,
                label,
                revision.revision if revision else 1,
                revision.of if revision else 1,
                exact,
                revision.manual_id if revision else document_id,
            )
        )
    return out


def precedence_problems(claims: Sequence[Claim], infos: Sequence[SourceInfo]) -> list[str]:
    """Claims citing only superseded revisions, or only family manuals while the exact
    model's manual is among the evidence, each with the better source to use."""
    by_number = {info.number: info for info in infos}
    newest = [i for i in infos if i.newest]
    exact = [i for i in infos if i.exact]
    problems = []
    for claim in claims:
        cited = [by_number[n] for n in claim.citations if n in by_number]
        if not cited:
            continue
        if all(not i.newest for i in cited):
            manuals = {c.manual_id for c in cited}
            better = [i for i in newest if i.manual_id in manuals]
            where = (
                f"the newer revision is {_numbers(better)}"
                if better
                else ("its newer revision is not among the evidence")
            )
            problems.append(
                f"“{claim.text}” cites a superseded revision ({_numbers(cited)}); {where}"
            )
            continue
        if exact and all(i.exact is False for i in cited):
            problems.append(
                f"“{claim.text}” cites a family manual ({_numbers(cited)}); the exact model's "
                f"manual is {_numbers(exact)}"
            )
    return problems


def _numbers(infos: Sequence[SourceInfo]) -> str:
    return ", ".join(f"[{i.number}]" for i in infos)
