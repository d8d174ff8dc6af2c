"""A guard against a reference-counting bug of PySide6 6.12 on Python 3.11.

Measured here: every call of a C++ method that returns nothing (``QLabel.setText``,
``QWidget.show``, ``processEvents``...) gives back ``None`` without taking a reference to
it, so ``None``'s count drops by one per call; some bool-returning calls (a signal's
``emit``) do the same to ``True``/``False``. When the count reaches zero the interpreter
aborts ("deallocating None"): the window died after ~16 s of a busy import and answer.
Python 3.12 made these singletons immortal, which hides the bug there. On older Pythons
we do what 3.12 does: raise their counts so far that no run can exhaust them. They are
never freed anyway, so nothing else changes.
"""

from __future__ import annotations

import ctypes
import sys

# 2**60 decrements at a billion calls a second would take 36 years.
HEADROOM = 1 << 60


def protect_singletons() -> bool:
    """Make None, True and False effectively immortal on CPython < 3.12; True if applied."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    for obj in (None, True, False):
        refcount = ctypes.c_ssize_t.from_address(id(obj))  # ob_refcnt is the first field
        if refcount.value < HEADROOM:
            refcount.value += HEADROOM
    return True
