"""The ``cluster-designer`` command line (DESIGN.md "Command line" contract): ``main`` is the
entry point of pyproject.toml and of ``python -m designer.cli``."""

from designer.cli.command import main

__all__ = ["main"]
