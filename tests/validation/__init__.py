"""Validation suite: published clusters, training runs and serving results vs the engine
(issues #4 and #15).

``python -m tests.validation.report`` regenerates ``docs/validation.md``;
``tests/validation/test_validation.py`` fails when a gated row leaves its tolerance.
Training, topology, power and reliability rows, sources and tolerances are in ``cases.py``;
the harness (projects written with ``core.project.save_project`` and evaluated through
``python -m designer.cli evaluate``) in ``suite.py``; ``calibrate.py`` re-derives the training
model's fitted constants. Serving rows are in ``inference_cases.py``, run by
``serving_suite.py``, rendered by ``serving_report.py``; ``calibrate_serving.py`` re-derives
the serving efficiencies.
"""
