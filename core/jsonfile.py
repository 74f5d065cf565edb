"""Read a JSON file with one-line errors (catalog, workload and project files share this)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.errors import DesignError


def read_json(path: str | Path, error: type[DesignError], what: str) -> Any:
    """Parse ``path``; any problem raises ``error`` naming the file, e.g. "x.json: no such file"."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path}: no such file (cannot read {what} file)") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a {what} file") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not a text (UTF-8) {what} file (bad byte at {exc.start})") from None
    except OSError as exc:
        raise error(f"{path}: cannot read {what} file ({exc.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
