"""Where bundled resources are, for the application and scripts (core never imports designer)."""

from __future__ import annotations

from pathlib import Path

_EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "resources" / "examples"


def default_example() -> Path:
    """The bundled example the GUI opens when no project file is given: the 4-SU DGX H100
    SuperPOD of resources/examples."""
    return _EXAMPLES_DIR / "dgx-h100-superpod-4su.json"
