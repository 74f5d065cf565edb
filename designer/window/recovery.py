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

from PySide6.QtCore import QObject, QStandardPaths, QThreadPool, QTimer, Signal

from core.errors import DesignError
from core.model import Design
from core.processes import pid_alive
from core.project import atomic_write_text, save_project
from designer.common.worker import WorkerJob
from designer.project.document import DesignDocument

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
    # Internal: a background draft written, or why not (from the worker, queued to the GUI).
    _wrote = Signal(int, object)
    _write_failed = Signal(int, str)

    def __init__(self, document: DesignDocument, interval_ms: int = AUTOSAVE_MS, parent=None):
        super().__init__(parent)
        self.document = document
        self._failure: str | None = None
        self.session = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.autosave_in_background)
        # The timer's drafts are written on a worker thread from a snapshot: writing a design
        # drawn device by device takes 10+ s, which would freeze the window every minute.
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._writing = False
        self._epoch = 0  # bumped by discard(): a draft finished after it is stale
        self._wrote.connect(self._after_write)
        self._write_failed.connect(self._after_write)

    @property
    def draft_path(self) -> Path:
        return recovery_dir() / f"draft-{self.session}.json"

    @property
    def meta_path(self) -> Path:
        return recovery_dir() / f"draft-{self.session}.meta.json"

    def start(self) -> None:
        self.timer.start()

    def autosave(self) -> bool:
        """Write a draft now if there are unsaved changes; returns whether one was written."""
        if not self.document.modified:
            return False
        try:
            self._write(*self._draft_job())
        except DesignError as exc:
            self._report(str(exc))
            return False
        self._failure = None
        return True

    def autosave_in_background(self) -> None:
        """Write a draft of the unsaved changes on a worker thread (one at a time)."""
        if not self.document.modified or self._writing:
            return
        self._writing = True
        job = self._draft_job()
        epoch = self._epoch

        def work() -> None:
            self._write(*job)
            if self._epoch != epoch:  # discarded while it was written: it must not outlive that
                self._remove_draft(job[1], job[2])

        self._pool.start(WorkerJob(work, epoch, self._wrote, self._write_failed, "autosave"))

    def _draft_job(self) -> tuple[Design, Path, Path, dict]:
        """What a draft write needs, taken on the GUI thread: an immutable snapshot, the paths
        and the meta record."""
        meta = {"pid": os.getpid(), "original": str(self.document.path) if self.document.path else None,
                "saved_at": datetime.now().isoformat(timespec="seconds"), "name": self.document.design.name}
        return self.document.design.snapshot(), self.draft_path, self.meta_path, meta

    @staticmethod
    def _write(design: Design, draft: Path, meta_path: Path, meta: dict) -> None:
        _make_folder(draft.parent)
        save_project(design, draft)
        atomic_write_text(meta_path, json.dumps(meta))

    def _after_write(self, _epoch: int, outcome: object) -> None:
        self._writing = False
        if isinstance(outcome, str):
            self._report(outcome.removeprefix("autosave failed: "))
        else:
            self._failure = None

    def _report(self, problem: str) -> None:
        # Recovery is best effort: the user keeps working, told once that drafts are off.
        if problem != self._failure:
            self._failure = problem
            self.failed.emit(f"autosave failed: {problem}")

    def discard(self) -> None:
        self._epoch += 1
        self._remove_draft(self.draft_path, self.meta_path)

    @staticmethod
    def _remove_draft(draft: Path, meta: Path) -> None:
        for path in (draft, meta):
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
