"""Assumptions editor: every assumption of the project, by analysis, with unit, meaning and default.

Each edit is one undo step (core.model.SetAssumptions with a ``dataclasses.replace``'d
Assumptions); an invalid value shows a one-line message and changes nothing. "Reset" puts one
section back to core's defaults, also as one undo step. Labels, units, allowed ranges, meanings
and editor kinds are derived from core's dataclasses and their field metadata
(designer/assumptions/assumption_fields.py), and values are checked by core's own validation, so a field
added in core appears here, with its bounds, without GUI changes.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QFrame, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QScrollArea,
    QSizePolicy, QToolButton, QVBoxLayout, QWidget,
)

from core.assumptions import Assumptions
from core.errors import DesignError
from core.operations import SetAssumptions
from designer.assumptions.assumption_fields import (
    SECTION_TITLES, FieldInfo, defaults, format_compact, format_value, parse_value, section_fields, section_reset, sections,
    with_value,
)
from designer.common.first_show import BuiltOnFirstShow
from designer.project.document import DesignDocument

CHANGED_COLOR = "#e65100"
EDITOR_WIDTH = 104
UNIT_WIDTH = 84      # fixed value/unit/default columns: the sections' grids line up
DEFAULT_WIDTH = 58
HELP_HINT = ("Click or hover a name to see what it means and where its default comes from. "
             "Changed values are marked <span style='color:%s'>●</span>; they are saved with the "
             "project and listed in the reports." % CHANGED_COLOR)


class _Section(QWidget):
    """A collapsible group: header (arrow, title, changed count, Reset) and a grid of fields."""

    def __init__(self, name: str, parent=None):
        super().__init__(parent)
        self.name = name
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.setSpacing(2)
        header = QHBoxLayout()
        self.toggle = QToolButton()
        self.toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.toggle.setAutoRaise(True)
        self.toggle.setCheckable(True)
        self.toggle.setChecked(True)
        self.toggle.toggled.connect(self._expand)
        self.title = QLabel()
        self.title.setStyleSheet("font-weight: 600; font-size: 10.5pt; color: #263238;")
        self.title.mousePressEvent = lambda _e: self.toggle.toggle()  # type: ignore[method-assign]
        self.reset = QPushButton("Reset to defaults")
        self.reset.setToolTip(f"Put every {SECTION_TITLES.get(name, name).lower()} assumption back to its "
                              "default (one undo step)")
        header.addWidget(self.toggle)
        header.addWidget(self.title, 1)
        header.addWidget(self.reset)
        layout.addLayout(header)
        self.body = QWidget()
        self.grid = QGridLayout(self.body)
        self.grid.setContentsMargins(22, 0, 0, 0)
        self.grid.setHorizontalSpacing(8)
        self.grid.setVerticalSpacing(3)
        self.grid.setColumnStretch(0, 1)
        self.grid.setHorizontalSpacing(8)
        self.grid.setColumnMinimumWidth(1, EDITOR_WIDTH)
        self.grid.setColumnMinimumWidth(2, UNIT_WIDTH)
        self.grid.setColumnMinimumWidth(3, DEFAULT_WIDTH)
        layout.addWidget(self.body)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setStyleSheet("color: #cfd8dc;")
        layout.addWidget(line)

    def _expand(self, on: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.body.setVisible(on)


class AssumptionsPanel(BuiltOnFirstShow, QWidget):
    title = "Assumptions"
    error = Signal(str)

    def __init__(self, document: DesignDocument, parent=None):
        super().__init__(parent)
        self.document = document
        self._infos: dict[str, FieldInfo] = {}
        self._editors: dict[str, QWidget] = {}        # by "section.name" (tests drive them)
        self._labels: dict[str, QLabel] = {}
        self._default_labels: dict[str, QLabel] = {}
        self._sections: dict[str, _Section] = {}
        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 6, 8, 4)
        outer.setSpacing(4)
        self.help = QLabel(HELP_HINT)
        self.help.setWordWrap(True)
        self.help.setTextFormat(Qt.TextFormat.RichText)
        self.help.setStyleSheet("color: #546e7a; background: #f5f7f8; border: 1px solid #e0e6e9; "
                                "border-radius: 4px; padding: 4px 6px;")
        self.help.setMinimumHeight(44)
        self.help.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.help.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        outer.addWidget(self.help)
        self.message = QLabel()
        self.message.setStyleSheet("color: #c62828;")
        self.message.setWordWrap(True)
        self.message.hide()
        outer.addWidget(self.message)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer.addWidget(self.scroll, 1)

    # --- construction --------------------------------------------------------------------
    def _build_body(self) -> None:
        """Build the fields (a few hundred widgets, their meanings read from core's source):
        called when the tab is first raised, or when a field is first asked for. The window
        opens with this tab behind the Inspector; building it cost a fifth of a second of
        every start."""
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 4, 0)
        column.setSpacing(2)
        for name in sections():
            section = _Section(name)
            section.reset.clicked.connect(lambda _=False, n=name: self.reset_section(n))
            self._sections[name] = section
            self._fill(section)
            column.addWidget(section)
        column.addStretch(1)
        self.scroll.setWidget(body)
        self.refresh()

    @property
    def infos(self) -> dict[str, FieldInfo]:
        self.ensure_built()
        return self._infos

    @property
    def editors(self) -> dict[str, QWidget]:
        self.ensure_built()
        return self._editors

    @property
    def labels(self) -> dict[str, QLabel]:
        self.ensure_built()
        return self._labels

    @property
    def default_labels(self) -> dict[str, QLabel]:
        self.ensure_built()
        return self._default_labels

    @property
    def sections(self) -> dict[str, _Section]:
        self.ensure_built()
        return self._sections

    def _fill(self, section: _Section) -> None:
        grid = section.grid
        row = 0
        for col, text in ((1, "value"), (2, "unit"), (3, "default")):
            head = QLabel(text)
            head.setStyleSheet("color: #90a4ae; font-size: 8pt;")
            grid.addWidget(head, row, col)
        row += 1
        heading = ""
        for info in section_fields(section.name):
            if info.heading and info.heading != heading:
                heading = info.heading
                sub = QLabel(heading[:1].upper() + heading[1:])
                sub.setStyleSheet("color: #37474f; font-weight: 600; margin-top: 4px;")
                grid.addWidget(sub, row, 0, 1, 4)
                row += 1
            self._infos[info.key] = info
            label = QLabel(info.label)
            label.setWordWrap(True)
            label.setToolTip(self._tooltip(info))
            label.installEventFilter(self)
            label.setProperty("assumption", info.key)
            editor = self._editor(info)
            editor.setToolTip(self._tooltip(info))
            editor.installEventFilter(self)
            editor.setProperty("assumption", info.key)
            unit = QLabel(info.unit)
            unit.setStyleSheet("color: #607d8b;")
            unit.setWordWrap(True)
            unit.setFixedWidth(UNIT_WIDTH)
            default_value = getattr(defaults(info.section), info.name)
            default = QLabel(format_compact(info, default_value))
            default.setStyleSheet("color: #90a4ae;")
            default.setToolTip(f"Default: {format_value(info, default_value)}")
            default.setFixedWidth(DEFAULT_WIDTH)
            grid.addWidget(label, row, 0)
            wide = info.kind in ("tuple", "dict")
            grid.addWidget(editor, row, 1, 1, 2 if wide else 1)
            if wide and info.unit:
                label.setText(f"{info.label} ({info.unit})")  # the editor takes the unit's column
            if not wide:
                grid.addWidget(unit, row, 2)
            metrics = default.fontMetrics()
            default.setText(metrics.elidedText(default.text(), Qt.TextElideMode.ElideRight, DEFAULT_WIDTH))
            grid.addWidget(default, row, 3)
            self._editors[info.key] = editor
            self._labels[info.key] = label
            self._default_labels[info.key] = default
            row += 1

    @staticmethod
    def _unit_text(info: FieldInfo) -> str:
        return f" ({info.unit})" if info.unit else (" (fraction)" if info.fraction else "")

    def _tooltip(self, info: FieldInfo) -> str:
        unit = html.escape(self._unit_text(info))
        meaning = html.escape(info.meaning) if info.meaning else "No description in core."
        default = html.escape(format_value(info, getattr(defaults(info.section), info.name)))
        allowed = f"allowed {html.escape(info.allowed)} · " if info.allowed else ""
        return (f"<b>{html.escape(info.label)}</b>{unit}<br>{meaning}<br>"
                f"<span style='color:#607d8b'>{allowed}default {default} · assumptions.{info.key}</span>")

    def _editor(self, info: FieldInfo) -> QWidget:
        if info.kind == "bool":
            box = QCheckBox()
            box.toggled.connect(lambda on, i=info: self.commit(i, bool(on)))
            return box
        if info.choices:
            combo = QComboBox()
            combo.addItems(list(info.choices))
            combo.setFixedWidth(EDITOR_WIDTH)
            combo.activated.connect(lambda _i, i=info, c=combo: self.commit(i, c.currentText()))
            return combo
        edit = QLineEdit()
        if info.kind in ("tuple", "dict"):
            # Spans the value and unit columns at a fixed width, so every section lines up;
            # the full text is in the field (and its default in the tooltip).
            edit.setFixedWidth(EDITOR_WIDTH + UNIT_WIDTH + 8)
            edit.setPlaceholderText("none" if info.kind == "dict" else "")
        else:
            edit.setFixedWidth(EDITOR_WIDTH)
            edit.setAlignment(Qt.AlignmentFlag.AlignRight)
        if info.optional:
            edit.setPlaceholderText("auto")
        edit.editingFinished.connect(lambda i=info, e=edit: self.commit_text(i, e.text()))
        return edit

    # --- model -> widgets ----------------------------------------------------------------
    def assumptions(self) -> Assumptions:
        return self.document.design.assumptions or Assumptions()

    def refresh(self) -> None:
        if not self.body_built:
            return  # built from the model when first shown
        current = self.assumptions()
        for name, section in self._sections.items():
            values = getattr(current, name)
            default = defaults(name)
            changed = 0
            for info in section_fields(name):
                value = getattr(values, info.name)
                is_changed = value != getattr(default, info.name)
                changed += is_changed
                self._show_value(info, value, is_changed)
            title = SECTION_TITLES.get(name, name.title())
            section.title.setText(f"{title}  <span style='color:{CHANGED_COLOR}; font-weight:400; "
                                  f"font-size:9pt'>● {changed} changed</span>" if changed else title)
            section.reset.setEnabled(bool(changed))

    def _show_value(self, info: FieldInfo, value: Any, changed: bool) -> None:
        editor = self.editors[info.key]
        editor.blockSignals(True)
        try:
            if isinstance(editor, QCheckBox):
                editor.setChecked(bool(value))
            elif isinstance(editor, QComboBox):
                index = editor.findText(str(value))
                if index < 0:
                    editor.addItem(str(value))
                    index = editor.count() - 1
                editor.setCurrentIndex(index)
            elif isinstance(editor, QLineEdit):
                editor.setText("" if value is None else format_value(info, value))
                editor.setCursorPosition(0)
        finally:
            editor.blockSignals(False)
        label = self.labels[info.key]
        text = f"{info.label} ({info.unit})" if info.kind in ("tuple", "dict") and info.unit else info.label
        label.setText(f"● {text}" if changed else text)
        label.setStyleSheet(f"color: {CHANGED_COLOR}; font-weight: 600;" if changed else "color: #37474f;")
        editor.setStyleSheet("font-weight: 600;" if changed else "")

    # --- edits ---------------------------------------------------------------------------
    def commit_text(self, info: FieldInfo, text: str) -> bool:
        current = getattr(getattr(self.assumptions(), info.section), info.name)
        try:
            value = parse_value(info, text, current)
        except DesignError as exc:
            self._fail(str(exc), info)
            return False
        return self.commit(info, value)

    def commit(self, info: FieldInfo, value: Any) -> bool:
        """Set one assumption as one undo step; False (and a message) when it is invalid."""
        current = self.assumptions()
        if getattr(getattr(current, info.section), info.name) == value:
            self.message.hide()
            self.refresh()  # normalise the text ("1.20" -> "1.2")
            return True
        try:
            changed = with_value(current, info, value)
        except DesignError as exc:
            self._fail(str(exc), info)
            return False
        self.message.hide()
        self.document.push(SetAssumptions(changed), f"Set {info.label} to {format_value(info, value)}")
        return True

    def set_text(self, key: str, text: str) -> bool:
        """Type ``text`` into the field ``key`` ("power.pue") and confirm it, as a user would."""
        editor = self.editors[key]
        if isinstance(editor, QLineEdit):
            editor.setText(text)
        return self.commit_text(self.infos[key], text)

    def reset_section(self, name: str) -> None:
        current = self.assumptions()
        reset = section_reset(current, name)
        if reset != current:
            self.message.hide()
            self.document.push(SetAssumptions(reset), f"Reset {SECTION_TITLES.get(name, name).lower()} assumptions")

    def _fail(self, message: str, info: FieldInfo) -> None:
        line = message.splitlines()[0] if message else "invalid value"
        self.message.setText(f"⚠ {line} — nothing was changed.")
        self.message.show()
        self.error.emit(line)
        self.refresh()  # the field snaps back to the model's value

    # --- help text -------------------------------------------------------------------------
    def show_help(self, key: str) -> None:
        info = self.infos.get(key)
        if info is None:
            return
        unit = self._unit_text(info)
        default = format_value(info, getattr(defaults(info.section), info.name))
        allowed = f"Allowed {info.allowed}. " if info.allowed else ""
        meaning = info.meaning or "no description in core."
        if meaning.lower().startswith(info.label.lower() + "."):
            meaning = meaning[len(info.label) + 1:].strip()  # "PUE. None: ..." under the title "PUE"
        self.help.setText(f"<b>{html.escape(info.label)}</b>{html.escape(unit)} — "
                          f"{html.escape(meaning)} "
                          f"<span style='color:#90a4ae'>{html.escape(allowed)}Default {html.escape(default)}.</span>")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.FocusIn, QEvent.Type.MouseButtonPress):  # not hover: no jumping
            key = watched.property("assumption")
            if key:
                self.show_help(key)
        return super().eventFilter(watched, event)
