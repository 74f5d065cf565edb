"""The outputs that must not move when the code is reshaped (issue 24, "behaviour unchanged"):
the evaluation JSON of every bundled example with its own workload, of every workload preset on a
bundled design, every bundled sweep's results, and the compare and Markdown reports of two
examples. ``python -m tests.golden.regenerate`` rewrites tests/golden/data/ from today's code;
do that only for a change that is meant to move a number, and say so in the commit."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
EXAMPLES = ROOT / "resources" / "examples"
WORKLOADS = ROOT / "resources" / "workloads"
SWEEPS = ROOT / "resources" / "sweeps"

# A training preset is fitted to an 8-system DGX H100 SuperPOD; a serving preset runs on the same.
PRESET_DESIGN = EXAMPLES / "dgx-h100-superpod-4su.json"


def cases() -> dict[str, list[str]]:
    """Golden file name -> the command-line arguments that write it (``-o`` is appended)."""
    out: dict[str, list[str]] = {}
    for example in sorted(EXAMPLES.glob("*.json")):
        out[f"example-{example.stem}.json"] = ["evaluate", str(example), "--format", "json"]
    for preset in sorted(WORKLOADS.glob("*.json")):
        out[f"preset-{preset.stem}.json"] = ["evaluate", str(PRESET_DESIGN), "--workload", preset.stem,
                                             "--format", "json"]
    for sweep in sorted(SWEEPS.glob("*.json")):
        out[f"sweep-{sweep.stem}.csv"] = ["sweep", str(sweep), "--jobs", "1", "--no-progress"]
    out["report-dgx-h100-superpod-4su.md"] = ["evaluate", str(PRESET_DESIGN), "--format", "md"]
    out["report-train-and-serve.md"] = ["evaluate", str(EXAMPLES / "train-and-serve.json"), "--format", "md"]
    out["compare-superpod-vs-gb200.json"] = [
        "compare", str(PRESET_DESIGN), str(EXAMPLES / "gb200-nvl72-su.json"), "--format", "json"]
    out["compare-superpod-vs-gb200.md"] = [
        "compare", str(PRESET_DESIGN), str(EXAMPLES / "gb200-nvl72-su.json"), "--format", "md"]
    return out


def produce(args: list[str], out_path: Path) -> None:
    """Run one case through the command line in this process and write its output file."""
    from designer.cli import main

    stderr = io.StringIO()
    with redirect_stderr(stderr):
        code = main([*args, "-o", str(out_path)])
    if code != 0:
        raise RuntimeError(f"{' '.join(args)} exited {code}: {stderr.getvalue().strip()}")


def relative(text: str) -> str:
    """Paths in an output are written relative to the repository, so goldens match on any clone."""
    return text.replace(str(ROOT) + "/", "")


def load_json(path: Path):
    return json.loads(relative(path.read_text()))
