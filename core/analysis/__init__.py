"""Pure analyses: each maps (what it needs of the flattened design, workload, assumptions) to a
typed result; core/units.py registers each as a unit and core/evaluate.py runs them in order.
Their assumptions live below them, in core/assumptions. The pattern a new analysis follows, and the import
rules between them, are in docs/architecture.md."""
