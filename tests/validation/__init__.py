"""Validation suite: published clusters and training runs vs the engine (issue #4).

``python -m tests.validation.report`` regenerates ``docs/validation.md``;
``tests/validation/test_validation.py`` fails when a gated row leaves its tolerance.
Rows, sources and tolerances are in ``cases.py``; the harness (projects written with
``core.project.save_project`` and evaluated through ``python -m designer.cli evaluate``) in
``suite.py``.
"""
