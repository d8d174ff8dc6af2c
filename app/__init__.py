"""Lantern: an offline assistant that answers questions from equipment manuals."""

__version__ = "0.1.0"
