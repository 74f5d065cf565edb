"""core/ must run without Qt: import every core module in a fresh interpreter with Qt blocked."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import core

ROOT = Path(__file__).resolve().parent.parent

BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in ('PySide6', 'PyQt5', 'PyQt6', 'shiboken6', 'pyqtgraph', 'designer'):
            raise ImportError('Qt is not allowed in core: ' + name)
sys.meta_path.insert(0, Block())
import importlib
for name in sys.argv[1:]:
    importlib.import_module(name)
print('ok', len(sys.argv) - 1)
"""


def core_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(core.__path__, "core."))


def test_every_core_module_imports_without_qt():
    modules = core_modules()
    assert len(modules) > 15
    result = subprocess.run([sys.executable, "-c", BLOCKER, *modules], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"ok {len(modules)}"


def test_headless_cli_evaluate_needs_no_qt(tmp_path):
    project = tmp_path / "p.json"
    # the command lives in designer (designer.cli); its headless subcommands still need no Qt
    script = BLOCKER.replace(", 'designer')", ")").replace(
        "import importlib\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\nprint('ok', len(sys.argv) - 1)",
        "from designer.cli import main\nraise SystemExit(main(sys.argv[1:]))")
    for args in (["generate", "fat-tree", "--gpus", "64", "--server", "DGX-H100", "--switch", "QM9700", "-o", str(project)],
                 ["evaluate", str(project), "--format", "md"]):
        result = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
