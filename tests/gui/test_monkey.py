"""A random-edit monkey on the GUI: no gesture raises, and undo/redo restore the design exactly.

Hypothesis (a ``RuleBasedStateMachine``) drives the real MainWindow through the paths a user's
gestures take: palette double-clicks, canvas actions (delete, cut, copy, paste, duplicate, group,
ungroup, collapse/expand, select all), connecting two cards (answering the "which component"
popup), mouse drags, Inspector, Workload (training and inference: presets, the kind, fields),
Services (add on the selection or a GPU count, remove, rename, move, another preset or a field,
the main workload's partition) and Assumptions field edits, templates, outline clicks, stepping in and out of blocks, undo and
redo, with selection changes in between. Every exception that reaches Qt's event loop fails the
gesture that raised it.

After every gesture the design must equal the state recorded when the undo stack was last at
that index, so an inexact undo or redo fails at once. At the end, undo all gives the starting
design and redo all the design after the last edit. "Equal" means the saved form
(``design_to_dict``: the order of children and links in every block, names, positions) and
``Design.content_equal`` (positions and values to the last bit).

The suite makes ``MONKEY_EXAMPLES`` (2) derandomised runs of ``MONKEY_STEPS`` (600) gestures.
Hypothesis' first run is its simplest (600 outline clicks); the second pushes about 300 edits
and makes about 200 undos and 90 redos. Hunt longer with e.g. ``MONKEY_EXAMPLES=50
HYPOTHESIS_PROFILE=explore python -m pytest tests/gui/test_monkey.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox
from pytestqt.exceptions import capture_exceptions, format_captured_exceptions

from core.generators import FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode
from core.model import Block
from core.project import design_to_dict, load_project

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "dgx-h100-superpod-4su.json"
STEPS = int(os.environ.get("MONKEY_STEPS", "600"))
EXAMPLES = int(os.environ.get("MONKEY_EXAMPLES", "2"))
# Canvas actions by weight: the structural ones (group, ungroup, expand) are where undo is hard.
CANVAS_ACTIONS = (("delete", 2), ("cut", 1), ("copy", 1), ("paste", 2), ("duplicate", 1), ("group", 3),
                  ("ungroup", 2), ("toggle_collapse", 2), ("select_all", 1))
# What a user types: ordinary values, edges and mistakes.
TYPED_NUMBERS = ("1", "2", "0.5", "0", "-1", "1e9", "abc", "", "7.25")
TYPED_NAMES = ("", "Rack A", "spine", "Ωmega · 1", "  padded  ")
TYPED_PATHS = ("", "leaf", "spine", "rack", "su/leaf", "ghost", "su")
# Gestures by how often a user makes them; the first ones are what Hypothesis shrinks towards.
GESTURES = (("select", 3), ("add_from_palette", 5), ("canvas_action", 12), ("inspector_edit", 10),
            ("connect", 5), ("drag", 3), ("undo", 5), ("redo", 2), ("navigate", 2), ("workload_edit", 2),
            ("assumptions_edit", 2), ("services_edit", 2), ("template", 1))


def _weighted(choices) -> st.SearchStrategy[str]:
    return st.sampled_from([name for name, weight in choices for _ in range(weight)])


def _check(caught) -> None:
    assert not caught, format_captured_exceptions(caught)


class GuiMonkey(RuleBasedStateMachine):
    window = None  # the test sets it: one MainWindow serves every run

    def __init__(self):
        super().__init__()
        win = self.window
        QApplication.clipboard().clear()  # every run starts alike: nothing to paste from the last one
        win.load_design(load_project(EXAMPLE, win.catalog), None)
        QApplication.processEvents()
        self.stack = win.document.undo_stack
        self.states = [self._state()]  # the design at each undo-stack index

    # --- helpers -------------------------------------------------------------------------
    @property
    def design(self):
        return self.window.document.design

    def _state(self):
        return design_to_dict(self.design), self.design.snapshot()

    def _matches(self, state) -> bool:
        saved, snapshot = state
        return design_to_dict(self.design) == saved and self.design.content_equal(snapshot)

    def _run(self, action) -> None:
        """``action`` and the events it posts, failing on any exception that reaches Qt."""
        with capture_exceptions() as caught:
            action()
            QApplication.processEvents()
        _check(caught)

    def _edit(self, action) -> None:
        """Run one edit gesture; record the new state when it pushed an undo step (a gesture is
        never more than one)."""
        before = self.stack.index()
        self._run(action)
        after = self.stack.index()
        if after == before + 1 and self.stack.count() == after:
            del self.states[after:]
            self.states.append(self._state())
        else:
            assert after == before, f"one gesture made {after - before} undo steps"

    def _select(self, data) -> None:
        """Select as a click (one card or link) or Ctrl+clicks (several cards and links) would."""
        scene = self.window.scene
        cards = [card.key for card in scene.cards()]
        links = [link.id for link in scene.current_block().links if scene.link_item(link.id) is not None]
        how = data.draw(st.sampled_from(["card", "link", "several", "nothing"]))
        ids: list[str] = []
        link_ids: list[str] = []
        if how == "card" and cards:
            ids = [data.draw(st.sampled_from(cards))]
        elif how == "link" and links:
            link_ids = [data.draw(st.sampled_from(links))]
        elif how == "several" and cards:
            ids = data.draw(st.lists(st.sampled_from(cards), unique=True, min_size=1, max_size=4))
            if links:
                link_ids = data.draw(st.lists(st.sampled_from(links), unique=True, max_size=2))
        self._run(lambda: scene.select(ids, link_ids))

    def _step_history(self, step, times: int) -> None:
        """Undo or redo ``times`` times through the Edit menu, checking the design after each."""
        for _ in range(times):
            self._run(step)
            self.design_is_the_one_recorded_at_this_undo_index()

    # --- the one rule: a gesture ---------------------------------------------------------
    @rule(data=st.data())
    def gesture(self, data):
        kind = data.draw(_weighted(GESTURES))
        getattr(self, kind)(data)

    # --- selection and navigation --------------------------------------------------------
    def select(self, data):
        if data.draw(st.booleans()):
            self._select(data)
            return
        paths = ["", *(path for path, _ in self.design.root.iter_blocks()),
                 *(path for path, _ in self.design.root.iter_nodes())]
        path = data.draw(st.sampled_from(paths))
        self._run(lambda: self.window.outline.reveal.emit(path))  # a click in the outline

    def navigate(self, data):
        scene, actions = self.window.scene, self.window.canvas_actions
        blocks = [k for k, c in scene.current_block().children.items() if isinstance(c, Block)]
        where = data.draw(st.sampled_from(["out", "root", *blocks]))
        if where == "out":
            self._run(actions.step_out.trigger)
        elif where == "root":
            self._run(lambda: self.window.breadcrumb.navigate.emit(""))
        else:
            self._run(lambda: actions.enter_block(where))

    def undo(self, data):
        """Step back a few edits, and maybe forward again some of the way."""
        back = data.draw(st.integers(1, 6))
        self._step_history(self.window.undo_action.trigger, back)
        self._step_history(self.window.redo_action.trigger, data.draw(st.integers(0, back)))

    def redo(self, data):
        self._step_history(self.window.redo_action.trigger, data.draw(st.integers(1, 6)))

    # --- canvas gestures -----------------------------------------------------------------
    def add_from_palette(self, data):
        catalog_id = data.draw(st.sampled_from(sorted(spec.id for spec in self.window.catalog)))
        item = self.window.palette.item_for(catalog_id)
        if item is not None:
            self._edit(lambda: self.window.palette.tree.itemDoubleClicked.emit(item, 0))

    def connect(self, data):
        scene = self.window.scene
        cards = [card.key for card in scene.cards()]
        if len(cards) < 2:
            return
        a, b = data.draw(st.lists(st.sampled_from(cards), min_size=2, max_size=2, unique=True))
        # A block end asks which of its components to use: answer the first popup with a
        # pick or a cancel; close any second one (a cancel).
        keys = data.draw(st.sampled_from([(Qt.Key.Key_Return,), (Qt.Key.Key_Down, Qt.Key.Key_Return),
                                          (Qt.Key.Key_Escape,)]))

        def answer():
            menu = QApplication.activePopupWidget()
            if menu is not None:
                for key in keys:
                    QTest.keyClick(menu, key)

        def close():
            menu = QApplication.activePopupWidget()
            if menu is not None:
                menu.close()
        QTimer.singleShot(0, self.window, answer)
        QTimer.singleShot(50, self.window, close)
        self._edit(lambda: self.window.view.connect_items(a, b))

    def canvas_action(self, data):
        name = data.draw(_weighted(CANVAS_ACTIONS))
        scene = self.window.scene
        blocks = [key for key, child in scene.current_block().children.items() if isinstance(child, Block)]
        if name in ("ungroup", "toggle_collapse") and blocks and data.draw(st.booleans()):
            # What these act on: one block (a random selection rarely is one).
            block = data.draw(st.sampled_from(blocks))
            self._run(lambda: scene.select([block]))
        else:
            self._select(data)
        self._edit(getattr(self.window.canvas_actions, name).trigger)

    def drag(self, data):
        view = self.window.view
        cards = self.window.scene.cards()
        if not cards:
            return
        card = data.draw(st.sampled_from(cards))
        dx, dy = data.draw(st.integers(-300, 300)), data.draw(st.integers(-300, 300))
        view.resetTransform()
        view.centerOn(card)
        viewport = view.viewport()
        start = view.mapFromScene(card.pos())

        def drag():
            QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
            for step in range(1, 4):
                QTest.mouseMove(viewport, start + QPoint(dx * step // 3, dy * step // 3))
            QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                               start + QPoint(dx, dy))
        self._edit(drag)

    def template(self, data):
        catalog = self.window.catalog
        if data.draw(st.booleans()):
            gpus = data.draw(st.sampled_from([64, 256, 1024]))
            design = generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", "QM9700"), catalog)
        else:
            design = generate_supernode(SupernodeOptions("GB200-NVL72", data.draw(st.integers(1, 4))), catalog)
        self._run(lambda: self.window.apply_template(design))
        # A new untitled document: its history starts here.
        assert self.stack.count() == 0 and self.window.document.path is None
        self.states = [self._state()]

    # --- panel edits ---------------------------------------------------------------------
    def inspector_edit(self, data):
        self._select(data)
        fields = self.window.inspector.fields
        if not fields:
            return
        name = data.draw(st.sampled_from(sorted(fields)))
        widget = fields[name]
        if isinstance(widget, QSpinBox):
            value = data.draw(st.sampled_from([1, 2, 3, 8, 64, 1000]))
            self._edit(lambda: widget.setValue(value))
        elif isinstance(widget, QDoubleSpinBox):
            value = data.draw(st.sampled_from([0.0, 1.0, 2.5, 100.0, 200.0, 400.0, 800.0]))
            self._edit(lambda: widget.setValue(value))
        elif isinstance(widget, QCheckBox):
            self._edit(widget.click)
        elif isinstance(widget, QComboBox):
            if widget.isEditable() and data.draw(st.booleans()):
                text = data.draw(st.sampled_from(TYPED_PATHS))

                def type_text():
                    widget.setEditText(text)
                    widget.lineEdit().editingFinished.emit()
                self._edit(type_text)
            elif widget.count():
                index = data.draw(st.integers(0, widget.count() - 1))

                def pick():
                    widget.setCurrentIndex(index)
                    widget.activated.emit(index)
                self._edit(pick)
        elif isinstance(widget, QLineEdit):
            text = data.draw(st.sampled_from(TYPED_NUMBERS if name.startswith("overrides.") else TYPED_NAMES))

            def type_text():
                widget.setText(text)
                widget.editingFinished.emit()
            self._edit(type_text)

    def workload_edit(self, data):
        panel = self.window.workload_panel
        choice = data.draw(st.sampled_from(["preset", "none", "field", "kind", "inference_field"]))
        if choice == "preset":  # training and inference presets alike
            names = [panel.preset.itemData(i) for i in range(panel.preset.count()) if panel.preset.itemData(i)]
            name = data.draw(st.sampled_from(names))
            self._edit(lambda: panel.choose_preset(name))
        elif choice == "none":
            self._edit(lambda: panel.choose_preset(None))
        elif choice == "kind":
            button = panel.kind_buttons[data.draw(st.sampled_from(sorted(panel.kind_buttons)))]
            self._edit(button.click)
        elif choice == "inference_field":  # hidden unless the workload is an inference one: Apply decides
            form = panel.inference_form
            spins = {**form.spins, **{f"{phase}.{key}": spin for phase, row in form.layouts.spins.items()
                                      for key, spin in row.items()}}
            key = data.draw(st.sampled_from(sorted(spins)))
            value = data.draw(st.sampled_from([0, 1, 2, 3, 8, 64, 4096]))
            another_class = data.draw(st.booleans())

            def edit_inference():
                if another_class:
                    form.requests.add_row()
                spins[key].setValue(value)
                panel.apply.click()
            self._edit(edit_inference)
        else:
            key = data.draw(st.sampled_from(sorted(panel.spins)))
            value = data.draw(st.sampled_from([0, 1, 2, 4, 8, 16, 96, 4096]))

            def edit():
                panel.spins[key].setValue(value)
                panel.apply.click()
            self._edit(edit)

    def services_edit(self, data):
        panel = self.window.services_panel
        names = [service.name for service in self.design.services]
        choice = data.draw(st.sampled_from(["add", "remove", "edit", "main"] if names else ["add", "main"]))
        self._select(data)  # what "Use the selection" takes
        if choice == "add":
            name = data.draw(st.sampled_from(("chat", "batch", *TYPED_NAMES)))
            index = data.draw(st.integers(0, panel.add_workload.count() - 1))
            on_selection, gpus = data.draw(st.booleans()), data.draw(st.sampled_from([1, 8, 64, 4096]))

            def add():
                panel.add_name.setText(name)
                panel.add_workload.setCurrentIndex(index)
                panel.add_workload.activated.emit(index)
                if on_selection:
                    panel.add_partition.take.click()  # disabled without a selection: a GPU count
                else:
                    panel.add_partition.gpus.setValue(gpus)
                panel.add_button.click()
            self._edit(add)
        elif choice == "remove":
            name = data.draw(st.sampled_from(names))
            self._edit(lambda: (panel.select_service(name), panel.remove.click()))
        elif choice == "edit":
            name = data.draw(st.sampled_from(names))
            field = data.draw(st.sampled_from(["name", "gpus", "blocks", "preset", "form"]))
            value = data.draw(st.sampled_from([1, 2, 8, 64, 4096]))
            text = data.draw(st.sampled_from(TYPED_NAMES))
            key = data.draw(st.sampled_from(sorted(panel.form.spins)))

            def edit():
                panel.select_service(name)
                if field == "name":
                    panel.edit_name.setText(text)
                elif field == "gpus":
                    panel.edit_partition.gpus.setValue(value)
                elif field == "blocks":
                    panel.edit_partition.take.click()
                elif field == "preset" and panel.edit_preset.count() > 1:
                    panel.edit_preset.setCurrentIndex(1)
                    panel.edit_preset.activated.emit(1)
                else:
                    panel.form.spins[key].setValue(value)
                panel.edit_apply.click()
            self._edit(edit)
        else:
            mode = data.draw(st.sampled_from(sorted(panel.main_partition.buttons)))
            gpus, text = data.draw(st.sampled_from([8, 512, 4096])), data.draw(st.sampled_from(TYPED_NAMES))

            def main():
                if mode == "blocks":
                    panel.main_partition.take.click()
                else:
                    panel.main_partition.buttons[mode].setChecked(True)
                    panel.main_partition.gpus.setValue(gpus)
                panel.main_partition.name.setText(text)
                panel.main_apply.click()
            self._edit(main)

    def assumptions_edit(self, data):
        panel = self.window.assumptions_panel
        if data.draw(st.integers(0, 9)) == 0:
            section = data.draw(st.sampled_from(sorted(panel.sections)))
            self._edit(lambda: panel.reset_section(section))
            return
        key = data.draw(st.sampled_from(sorted(panel.editors)))
        editor = panel.editors[key]
        if isinstance(editor, QCheckBox):
            self._edit(editor.click)
        elif isinstance(editor, QComboBox):
            index = data.draw(st.integers(0, editor.count() - 1))

            def pick():
                editor.setCurrentIndex(index)
                editor.activated.emit(index)
            self._edit(pick)
        else:
            text = data.draw(st.sampled_from(TYPED_NUMBERS))
            self._edit(lambda: panel.set_text(key, text))

    # --- properties ----------------------------------------------------------------------
    @invariant()
    def design_is_the_one_recorded_at_this_undo_index(self):
        index = self.stack.index()
        assert self._matches(self.states[index]), f"the design differs from its state at undo index {index}"

    @invariant()
    def canvas_shows_the_current_block(self):
        scene = self.window.scene
        assert {card.key for card in scene.cards()} == set(scene.current_block().children)

    def teardown(self):
        if sys.exc_info()[0] is not None:
            return  # a gesture failed and its error is on its way out: more checks add only noise
        with capture_exceptions() as caught:
            while self.stack.canUndo():
                self.stack.undo()
            QApplication.processEvents()
            assert self._matches(self.states[0]), "undo all does not give the starting design"
            while self.stack.canRedo():
                self.stack.redo()
            QApplication.processEvents()
            assert self._matches(self.states[-1]), "redo all does not give the design after the last edit"
        _check(caught)


def test_random_gui_edits_raise_nothing_and_undo_redo_exactly(window, monkeypatch):
    monkeypatch.setattr(GuiMonkey, "window", window)
    run_state_machine_as_test(GuiMonkey, settings=settings(
        settings.default, max_examples=EXAMPLES, stateful_step_count=STEPS,
        # Long runs are the point (their simplest form is long too); shrinking still works.
        suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.large_base_example]))
