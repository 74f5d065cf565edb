"""The import rules of docs/architecture.md hold, and each one fails when its rule is broken.

The rules are import-linter contracts in pyproject.toml ([tool.importlinter]); ``lint-imports``
checks them on the real tree, then on a small stand-in tree (the same package and module names,
empty modules) once clean and once per rule with one import that breaks that rule alone.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
CONTRACTS = {c["id"]: c for c in CONFIG["contracts"]}
# ``lint-imports`` of this interpreter's import-linter, wherever its scripts were installed
LINT_IMPORTS = [sys.executable, "-c",
                "from importlinter.cli import lint_imports_command; lint_imports_command()"]

# One breach per contract: (file of the stand-in tree, the code that breaks the rule).
BREACHES = {
    "core-is-headless": ("core/series.py", "import designer\n"),
    "core-acyclic": ("core/a.py", "import core.b\n"),
    "evaluation-layers": ("core/analysis/power.py", "from core.evaluate import Evaluation\n"),
    "assumptions-below-analyses": ("core/assumptions/power.py", "import core.analysis.power\n"),
    "performance-layers": ("core/analysis/step_time.py",
                           "from core.analysis.parallelism_search import search_parallelism\n"),
    "inference-layers": ("core/analysis/inference_ranking.py",
                         "from core.analysis.inference_search import search_deployment\n"),
    "designer-layers": ("designer/panels.py", "import designer.workload\n"),
    "no-private-names": ("core/analysis/bottleneck.py",
                         "from core.analysis.performance import _evaluate\n"),
}


def lint(cwd: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` in ``cwd`` (it lints the packages found there first)."""
    return subprocess.run([*LINT_IMPORTS, "--no-cache"], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def stand_in_tree(root: Path) -> Path:
    """core and designer with every module the contracts name (empty), plus core/b.py importing
    core/a.py (half of a cycle) and the private name bottleneck may not take."""
    root.mkdir()
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    (root / "tests").mkdir()
    shutil.copy(ROOT / "tests" / "import_contracts.py", root / "tests" / "import_contracts.py")
    names = {"core", "designer", "core.a", "core.b", "core.analysis.power"}
    for contract in CONTRACTS.values():
        for field in ("source_modules", "forbidden_modules", "ancestors", "layers"):
            for entry in contract.get(field, []):
                names.update(name.strip() for name in entry.split("|"))
    packages = set(CONFIG["root_packages"])
    for name in sorted(n for n in names if n.split(".")[0] in packages):
        parts = name.split(".")
        packages.update(".".join(parts[:depth]) for depth in range(1, len(parts)))
    for package in sorted(packages):
        path = root.joinpath(*package.split("."))
        path.mkdir(parents=True, exist_ok=True)
        (path / "__init__.py").touch()
    for name in sorted(n for n in names if n.split(".")[0] in packages and n not in packages):
        root.joinpath(*name.split(".")).with_suffix(".py").touch()
    (root / "core" / "b.py").write_text("import core.a\n")
    (root / "core" / "analysis" / "performance.py").write_text("def _evaluate():\n    pass\n")
    return root


def test_every_import_contract_holds_on_the_code():
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(CONTRACTS)} kept, 0 broken" in done.stdout


def test_every_rule_has_a_breach_below():
    assert set(BREACHES) == set(CONTRACTS)


def test_the_stand_in_tree_keeps_every_contract(tmp_path):
    done = lint(stand_in_tree(tmp_path / "clean"))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("contract_id", sorted(BREACHES))
def test_a_contract_fails_when_its_rule_is_broken(tmp_path, contract_id):
    tree = stand_in_tree(tmp_path / "broken")
    path, code = BREACHES[contract_id]
    with open(tree / path, "a", encoding="utf-8") as handle:
        handle.write(code)
    done = lint(tree)
    assert done.returncode == 1, done.stdout + done.stderr
    verdicts = " ".join(done.stdout.split())  # long contract names wrap
    assert f"{CONTRACTS[contract_id]['name']} BROKEN" in verdicts
    assert f"{len(CONTRACTS) - 1} kept, 1 broken" in done.stdout, done.stdout
