"""Cluster Designer core engine: catalog, design model, generators, analyses, reports.

Nothing in this package may import Qt; ``tests/test_core_has_no_qt.py`` enforces it.
"""

__version__ = "0.1.0"
