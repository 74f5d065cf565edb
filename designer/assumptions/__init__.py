"""The assumptions editor: every assumption of the project, by analysis."""
