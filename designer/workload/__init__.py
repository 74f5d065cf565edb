"""The Workload tab: a training or an inference workload, its presets, software stack and searches."""
