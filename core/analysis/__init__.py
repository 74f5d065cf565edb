"""Pure analyses: each maps (what it needs of the flattened design, workload, assumptions) to a
typed result; core/evaluate.py orders them. The pattern a new analysis follows, and the import
rules between them, are in docs/architecture.md."""
