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

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal

from core.errors import DesignError
from core.processes import pid_alive
from core.project import atomic_write_text, save_project
from designer.document import DesignDocument

AUTOSAVE_MS = 60_000


def recovery_dir() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base) / "recovery"


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise DesignError(f"{folder}: a file is in the way of the drafts folder") from None
    except OSError as exc:
        raise DesignError(f"{folder}: cannot create the drafts folder ({exc.strerror or exc})") from None


@dataclass(frozen=True)
class Draft:
    project: Path
    meta: Path
    original: Path | None
    saved_at: str
    name: str


class RecoveryManager(QObject):
    # Why drafts cannot be written (an unwritable app-data folder, a full disk): emitted when
    # autosave starts failing or fails for a new reason, not every minute.
    failed = Signal(str)

    def __init__(self, document: DesignDocument, interval_ms: int = AUTOSAVE_MS, parent=None):
        super().__init__(parent)
        self.document = document
        self._failure: str | None = None
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
            _make_folder(folder)
            save_project(self.document.design, self.draft_path)
            meta = {"pid": os.getpid(), "original": str(self.document.path) if self.document.path else None,
                    "saved_at": datetime.now().isoformat(timespec="seconds"), "name": self.document.design.name}
            atomic_write_text(self.meta_path, json.dumps(meta))
        except DesignError as exc:
            # Recovery is best effort: the user keeps working, told once that drafts are off.
            if str(exc) != self._failure:
                self._failure = str(exc)
                self.failed.emit(f"autosave failed: {exc}")
            return False
        self._failure = None
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
        try:
            metas = sorted(recovery_dir().glob("draft-*.meta.json"))
        except OSError:
            return out  # a recovery folder we cannot list holds nothing we can offer
        for meta_path in metas:
            project = meta_path.with_name(meta_path.name.replace(".meta.json", ".json"))
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
                found = project.is_file()
            except (OSError, ValueError):
                continue
            # A damaged or foreign meta file is skipped, never trusted.
            if not (found and isinstance(meta, dict) and isinstance(meta.get("pid"), int)):
                continue
            if pid_alive(meta["pid"]):
                continue
            original = meta.get("original")
            original = Path(original) if isinstance(original, str) and original else None
            out.append(Draft(project, meta_path, original, str(meta.get("saved_at", "")), str(meta.get("name", ""))))
        return out

    @staticmethod
    def remove(draft: Draft) -> None:
        for path in (draft.project, draft.meta):
            try:
                path.unlink()
            except OSError:
                pass
