"""A short profile of each manual, derived at import from its title page and headings.

The agent reads profiles to route questions (mounting and connections: the installation
guide; everyday operation: the user manual). The words that tell a manual's type are those
of any technical manual ("installation", "operating", "specifications"), not one trade's.
Rules only; an LLM may refine a profile later.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from app.library.models import ManualProfile, ManualType, PageContent

_TYPE_WORDS: dict[ManualType, tuple[str, ...]] = {
    "installation": (
        "installation",
        "install",
        "installing",
        "installer",
        "hardware",
        "mount",
        "mounting",
        "connect",
        "connecting",
        "commissioning",
        "bracket",
        "drill",
        "connection",
        "connections",
    ),
    "user": (
        "user",
        "users",
        "operation",
        "operating",
        "how to",
        "everyday",
        "menu",
    ),
    "datasheet": ("datasheet", "data sheet", "specifications", "specification", "dimensions"),
    "programming": ("programming", "program", "settings", "configuration", "parameter"),
    "service": ("service", "maintenance", "repair", "troubleshooting", "calibration"),
}
_AUDIENCE: dict[ManualType, str] = {
    "installation": "installers and service technicians",
    "user": "end users, and technicians helping them",
    "datasheet": "specifiers and technicians",
    "programming": "installers programming the system",
    "service": "service technicians",
    "other": "technicians",
}
# The words any manual's title may hold that say what kind of document it is, not what it is
# about (``query.kind_names`` leaves them out too).
MANUAL_WORDS = {
    "manual",
    "guide",
    "installation",
    "install",
    "user",
    "users",
    "instructions",
    "instruction",
    "operating",
    "operation",
    "reference",
    "quick",
    "start",
    "the",
    "and",
    "for",
    "of",
    "rev",
    "version",
    "issue",
    "series",
    "english",
    "en",
    "pdf",
    "v",
    "programming",
    "datasheet",
}
_MODEL_CODE = re.compile(r"\b(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b")
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[A-Z]\.|[IVX]{1,5}\.)\s*")


def build_profile(title: str, file_name: str, pages: Sequence[PageContent]) -> ManualProfile:
    """Product, manual type, audience and main topics of one manual."""
    headings = [b.text.replace("\n", " ") for p in pages for b in p.blocks if b.kind == "heading"]
    front = " ".join(p.text for p in pages[:2])
    manual_type = _manual_type(f"{title} {file_name}", headings, front)
    product = _product(title, file_name, front, pages)
    topics = _topics(headings)
    summary = f"{product or title}: {manual_type} manual"
    if topics:
        summary += " covering " + ", ".join(topics[:6])
    return ManualProfile(
        product=product,
        manual_type=manual_type,
        audience=_AUDIENCE[manual_type],
        topics=tuple(topics),
        summary=summary,
    )


def _manual_type(name: str, headings: Sequence[str], front: str) -> ManualType:
    scores: Counter[ManualType] = Counter()
    name_l, front_l = name.lower(), front.lower()
    heading_text = " ".join(headings).lower()
    for kind, words in _TYPE_WORDS.items():
        for word in words:
            pattern = rf"\b{re.escape(word)}\b"
            scores[kind] += 6 * len(re.findall(pattern, name_l))
            scores[kind] += 2 * min(len(re.findall(pattern, front_l)), 3)
            scores[kind] += min(len(re.findall(pattern, heading_text)), 5)
    if not scores or scores.most_common(1)[0][1] == 0:
        return "other"
    return scores.most_common(1)[0][0]


def _product(title: str, file_name: str, front: str, pages: Sequence[PageContent]) -> str:
    """Model codes (HSGW-MAX8, BOGP-3) named on the title page or in the file name win."""
    body = " ".join(p.text for p in pages)
    stem = re.sub(r"[_]+", " ", file_name.rsplit(".", 1)[0])
    codes = Counter(_MODEL_CODE.findall(f"{title} {stem} {front}"))
    squashed_name = re.sub(r"[\s_-]", "", f"{title} {stem}").upper()
    for code in list(codes):
        codes[code] += body.count(code)
        # The product a manual is about is in its title or file name; accessories are not.
        if code.replace("-", "") in squashed_name:
            codes[code] += 1000
    if codes:
        best = max(codes.items(), key=lambda kv: (kv[1], len(kv[0])))[0]
        return best
    words = [w for w in re.findall(r"[A-Za-z0-9][\w-]*", title) if w.lower() not in MANUAL_WORDS]
    return " ".join(words[:4])


def _topics(headings: Sequence[str], limit: int = 12) -> list[str]:
    """Top-level section titles, numbering stripped, in document order."""
    seen: list[str] = []
    top = [h for h in headings if re.match(r"^\s*\d+\.?\s+\D", h)] or list(headings)
    for heading in top:
        clean = _NUMBERING.sub("", heading).strip(" .:-")
        clean = re.sub(r"\s+", " ", clean)
        if 3 <= len(clean) <= 60 and clean.lower() not in (s.lower() for s in seen):
            seen.append(clean)
        if len(seen) >= limit:
            break
    return seen
