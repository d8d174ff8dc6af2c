"""Qt widgets. The only package that imports PySide6."""
