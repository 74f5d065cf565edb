"""Crash recovery: periodic drafts of unsaved work in the app-data folder, offered back later.

A draft is written only to the recovery folder, never over the user's file. Each running
window owns one draft (named by a session id holding its process id); a clean save or a normal
close deletes it, so drafts left behind belong to sessions that crashed.
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import datetime
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer

from core.errors import DesignError
from core.project import atomic_write_text, save_project
from designer.document import DesignDocument

AUTOSAVE_MS = 60_000


def recovery_dir() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base) / "recovery"


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


@dataclass(frozen=True)
class Draft:
    project: Path
    meta: Path
    original: Path | None
    saved_at: str
    name: str


class RecoveryManager(QObject):
    def __init__(self, document: DesignDocument, interval_ms: int = AUTOSAVE_MS, parent=None):
        super().__init__(parent)
        self.document = document
        self.session = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.autosave)

    @property
    def draft_path(self) -> Path:
        return recovery_dir() / f"draft-{self.session}.json"

    @property
    def meta_path(self) -> Path:
        return recovery_dir() / f"draft-{self.session}.meta.json"

    def start(self) -> None:
        self.timer.start()

    def autosave(self) -> bool:
        """Write a draft if there are unsaved changes; returns whether one was written."""
        if not self.document.modified:
            return False
        folder = recovery_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            save_project(self.document.design, self.draft_path)
            meta = {"pid": os.getpid(), "original": str(self.document.path) if self.document.path else None,
                    "saved_at": datetime.now().isoformat(timespec="seconds"), "name": self.document.design.name}
            atomic_write_text(self.meta_path, json.dumps(meta))
        except (OSError, DesignError):
            return False  # recovery is best effort; never interrupt the user for it
        return True

    def discard(self) -> None:
        for path in (self.draft_path, self.meta_path):
            try:
                path.unlink()
            except OSError:
                pass

    @staticmethod
    def orphaned_drafts() -> list[Draft]:
        """Drafts of sessions that are no longer running (they crashed or were killed)."""
        out = []
        folder = recovery_dir()
        if not folder.is_dir():
            return out
        for meta_path in sorted(folder.glob("draft-*.meta.json")):
            project = meta_path.with_name(meta_path.name.replace(".meta.json", ".json"))
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not project.exists() or _alive(int(meta.get("pid", -1))):
                continue
            original = Path(meta["original"]) if meta.get("original") else None
            out.append(Draft(project, meta_path, original, meta.get("saved_at", ""), meta.get("name", "")))
        return out

    @staticmethod
    def remove(draft: Draft) -> None:
        for path in (draft.project, draft.meta):
            try:
                path.unlink()
            except OSError:
                pass
