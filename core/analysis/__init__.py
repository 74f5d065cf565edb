"""Pure analyses: each maps (fabric/inventory, workload, assumptions) to a typed result."""
