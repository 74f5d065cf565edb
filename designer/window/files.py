"""The main window's files: new, new from a template, open (also recent files and a crash's
drafts), save, save as, and the diagram and summary exports; project files are read and
written on a worker thread while the window says so (designer/common/busy.py)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from core.errors import DesignError
from core.operations import ReplaceRoot, SetDesignName
from core.project import load_project, save_project
from designer.common.busy import Cancelled, run_busy
from designer.project.document import empty_design
from designer.window.export import DIAGRAM_FORMATS, SUMMARY_EXTENSIONS, export_summary, render_scene, with_extension
from designer.window.recovery import RecoveryManager
from designer.window.user_settings import recent_paths

MAX_RECENT = 8
PROJECT_FILTER = "Cluster Designer project (*.json);;All files (*)"
STATUS_MS = 6000


class WindowFiles:
    """MainWindow's file work (a part of MainWindow: its document, recovery, settings and
    status bar)."""

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.document.title}[*] — Cluster Designer")
        self.setWindowModified(self.document.modified)

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current design (saved, discarded or unmodified)."""
        if not self.document.modified:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes", f"Save the changes to {self.document.title}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_design(self) -> None:
        if self.maybe_save():
            self.recovery.discard()
            self.document.reset(empty_design(), None)

    def new_from_template(self) -> None:
        """Generate a design in the wizard and open it as a new untitled document, after
        asking to save unsaved work (as New and Open do): the open file is never touched."""
        from designer.window.wizard import TemplateWizard  # noqa: PLC0415 - the generators: when first asked for

        wizard = TemplateWizard(self.catalog, self)
        if wizard.exec() and wizard.design is not None and self.maybe_save():
            self.apply_template(wizard.design)

    def apply_template(self, design) -> None:
        """Open the generated ``design`` as a new untitled document (Save asks for a file),
        with the current design's workload, assumptions and services, which describe the job
        rather than the hardware. Not yet saved anywhere, it counts as unsaved work."""
        opened = self.document.design.snapshot()
        ReplaceRoot(design.root, design.name, design.metadata).apply(opened)
        self.recovery.discard()
        self.document.reset(opened, None)  # the canvas shows its top level, fitted
        self.document.undo_stack.resetClean()

    def open_dialog(self) -> None:
        start = str(self.document.path.parent) if self.document.path else ""
        name, _ = QFileDialog.getOpenFileName(self, "Open project", start, PROJECT_FILTER)
        if name:
            self.open_file(Path(name))

    def open_file(self, path: Path) -> bool:
        if not self.maybe_save():
            return False
        try:
            design = self.read_project(Path(path))
        except Cancelled:
            self.statusBar().showMessage(f"Opening {Path(path).name} cancelled", STATUS_MS)
            return False
        except DesignError as exc:
            # The current document and its file stay untouched: nothing is ever saved over a
            # file that failed to load.
            QMessageBox.critical(self, "Cannot open project", str(exc))
            return False
        self.recovery.discard()
        self.document.reset(design, Path(path))
        self._add_recent(Path(path))
        self.statusBar().showMessage(f"Opened {path}", STATUS_MS)
        return True

    def read_project(self, path: Path):
        """The design in project file ``path``, read on a worker thread while the window says
        so (a design drawn device by device is 300 MB of JSON). Raises DesignError, or
        designer.common.busy.Cancelled when the user gives up waiting."""
        try:
            size = f" ({path.stat().st_size / 1e6:,.0f} MB)"
        except OSError:
            size = ""  # load_project names the problem
        return run_busy(self, f"Opening {path.name}{size}…", lambda: load_project(path, self.catalog),
                        cancellable=True, what="opening the project")

    def load_design(self, design, path: Path | None, copy_of: Path | None = None) -> None:
        """Show an already loaded design (the command line path; no prompts). With ``path``
        None it is untitled: Save asks for a file. ``copy_of`` is the file it was read from
        (the bundled example): the title says it is a copy, and that file is never written."""
        self.document.reset(design, path, copy_of)
        if path is not None and self.interactive:
            self._add_recent(path)

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self._save_to(self.document.path)

    def save_as(self) -> bool:
        start = str(self.document.path or Path.home() / f"{self.document.design.name or 'design'}.json")
        name, _ = QFileDialog.getSaveFileName(self, "Save project", start, PROJECT_FILTER)
        if not name:
            return False
        path = with_extension(name, ".json", (".json",))
        return self._save_to(path, name_after_file=self.document.design.name != path.stem)

    def _save_to(self, path: Path, name_after_file: bool = False) -> bool:
        """Write the project to ``path``. ``name_after_file`` (Save As): the design takes the
        file's name (summaries and diagrams are titled with it), as an undoable step that is
        part of what is saved; nothing changes when the write fails."""
        design = self.document.design
        rename = SetDesignName(path.stem) if name_after_file else None
        # Written from a snapshot on a worker thread, while the window says so: writing a design
        # drawn device by device takes seconds.
        named = design.snapshot()
        if rename is not None:
            rename.apply(named)
        try:
            run_busy(self, f"Saving {path.name}…", lambda: save_project(named, path), what="saving the project")
        except DesignError as exc:
            QMessageBox.critical(self, "Cannot save project", str(exc))
            return False
        if rename is not None:
            self.document.push(rename, f"Name the design {path.stem}")
        self.document.undo_stack.setClean()
        self.document.set_path(path)
        self.recovery.discard()
        self._add_recent(path)
        self.statusBar().showMessage(f"Saved {path}", STATUS_MS)
        return True

    def recent_files(self) -> list[str]:
        return recent_paths(self.settings.value("recent", []))

    def _add_recent(self, path: Path) -> None:
        if not self.interactive:
            return
        text = str(Path(path).resolve())
        recent = [text] + [p for p in self.recent_files() if p != text]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self._refresh_recent_menu()

    def _refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_files() if self.interactive else []
        for n, name in enumerate(recent):
            action = self.recent_menu.addAction(f"&{n + 1} {name}")
            action.triggered.connect(lambda _=False, p=name: self.open_file(Path(p)))
        self.recent_menu.setEnabled(bool(recent))

    def export_diagram(self, path: Path, width_px: int = 1600, selected_only: bool = False) -> None:
        render_scene(self.scene, path, width_px, selected_only, self.document.design.name)

    def export_diagram_dialog(self, ext: str, selected_only: bool) -> None:
        base = (self.document.path.stem if self.document.path else self.document.design.name) or "diagram"
        name, _ = QFileDialog.getSaveFileName(self, "Export diagram", f"{base}{ext}",
                                              f"{ext[1:].upper()} (*{ext})")
        if not name:
            return
        path = with_extension(name, ext, DIAGRAM_FORMATS)
        width = 1600
        if ext == ".png":
            width, ok = QInputDialog.getInt(self, "PNG size", "Width in pixels:", 2400, 200, 20_000, 100)
            if not ok:
                return
        try:
            self.export_diagram(path, width, selected_only)
        except DesignError as exc:
            QMessageBox.critical(self, "Cannot export", str(exc))
            return
        self.statusBar().showMessage(f"Exported {path}", STATUS_MS)

    def export_summary(self, path: Path, fmt: str | None = None) -> None:
        result = self.evaluator.last if not self.evaluator.busy else None
        result = result or self.evaluate_now()
        if result is None:
            raise DesignError("the design could not be evaluated")
        export_summary(result.evaluation, path, fmt)

    def export_summary_dialog(self, fmt: str) -> None:
        extensions = SUMMARY_EXTENSIONS[fmt]
        ext = extensions[0]
        base = (self.document.path.stem if self.document.path else self.document.design.name) or "summary"
        suggested = f"{base}-bom{ext}" if fmt == "bom" else f"{base}{ext}"
        name, _ = QFileDialog.getSaveFileName(self, "Export summary", suggested, f"{fmt.upper()} (*{ext})")
        if not name:
            return
        path = with_extension(name, ext, extensions)
        try:
            self.export_summary(path, fmt)
        except DesignError as exc:
            QMessageBox.critical(self, "Cannot export", str(exc))
            return
        self.statusBar().showMessage(f"Exported {path}", STATUS_MS)

    def offer_recovery(self) -> None:
        """After a crash: offer each draft left by a session that is gone."""
        for draft in RecoveryManager.orphaned_drafts():
            where = f" (from {draft.original})" if draft.original else ""
            answer = QMessageBox.question(
                self, "Recover unsaved work",
                f"Cluster Designer closed unexpectedly. Recover “{draft.name}”{where}, autosaved at "
                f"{draft.saved_at}?", QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
            if answer == QMessageBox.StandardButton.Yes:
                try:
                    design = self.read_project(draft.project)
                except Cancelled:
                    continue  # the draft stays for the next start
                except DesignError as exc:
                    QMessageBox.critical(self, "Cannot recover", str(exc))
                    continue
                self.document.reset(design, draft.original)
                self.document.undo_stack.resetClean()  # recovered work is unsaved work
                RecoveryManager.remove(draft)
                return
            RecoveryManager.remove(draft)
