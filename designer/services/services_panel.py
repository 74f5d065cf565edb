"""The Services tab: the inference services a design carries beside its main workload, each on a
partition (blocks selected on the canvas, or a GPU count), and where the main workload runs
(core/services.py; README "Several workloads on one design").

Every change is one undo step through core's operations (AddService, RemoveService,
ChangeService, SetWorkloadPartition); an edit core refuses (a name already taken, no blocks
chosen) leaves the design as it is and its one-line DesignError shows under the group that made
it. A service's workload is an inference preset or a copy of the main inference workload when
added; its fields are edited with the Workload tab's own inference form (designer/
inference_form.py). The GPUs each partition holds come from the latest evaluation.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QHeaderView,
                               QLabel, QLineEdit, QPushButton, QScrollArea, QTableWidget, QTableWidgetItem,
                               QToolButton, QVBoxLayout, QWidget)

from core.assumptions import Assumptions
from core.errors import DesignError
from core.inference_workload import (AUTO, InferenceWorkload, inference_workload_from_dict,
                                     inference_workload_to_dict, list_inference_presets, load_inference_preset)
from core.operations import AddService, ChangeService, RemoveService, SetWorkloadPartition
from core.preset_choice import first_service_that_runs
from core.services import Service
from designer.canvas.partition_tags import partition_colors
from designer.common.first_show import BuiltOnFirstShow
from designer.common.format import num
from designer.project.document import DesignDocument
from designer.services.partition_editor import GPUS, PartitionEditor
from designer.workload.inference_form import InferenceForm

COLUMNS = (("Service", "The service's name"), ("Partition", "Where it runs: its partition's name and what it holds"),
           ("Workload", "The inference workload it serves"), ("GPUs", "GPUs of its partition (latest evaluation)"))
SHOWN_ROWS = 8       # the list grows to this many rows, then scrolls
COPY_OF_MAIN = "main"
ERROR_STYLE = "color: #c62828;"


def _error_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(ERROR_STYLE)
    label.hide()
    return label


def _say(label: QLabel, text: str) -> None:
    label.setText(text)
    label.setVisible(bool(text))


def default_gpus(workload: InferenceWorkload) -> int:
    """The GPUs a new service of ``workload`` starts with: its deployment's, 8 for "auto"."""
    return workload.deployment.gpus if workload.deployment != AUTO else 8


class ServicesPanel(BuiltOnFirstShow, QScrollArea):
    error = Signal(str)

    def __init__(self, document: DesignDocument, parent=None):
        super().__init__(parent)
        self.document = document
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._result = None          # the latest evaluation (GPUs of each partition)
        self._selection: list[str] = []  # the design paths selected on the canvas
        self._selected: str | None = None  # the service shown in the editor
        self._edit_base: InferenceWorkload | None = None  # what the editor's form was loaded with
        self._form_edited = False
        self._add_chosen_by_user = False  # "Add a service"'s workload: picked, or offered
        self._add_shown: str | None = None  # the workload "Add a service" shows
        self._offered_on: str | None = None  # the accelerator that offer was chosen for
        # the tab's widgets are made when it is first raised (designer/common/first_show.py)

    def _build_body(self) -> None:
        self._presets: dict[str, InferenceWorkload] = {}
        for name in list_inference_presets():
            try:
                self._presets[name] = load_inference_preset(name)
            except DesignError:
                continue  # a broken preset file must not take the tab down
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(8, 8, 8, 8)
        intro = QLabel("Inference services run beside the main workload, each on a partition of the design: "
                       "blocks selected on the canvas, or a GPU count.")
        intro.setWordWrap(True)
        intro.setStyleSheet("color: #546e7a;")
        layout.addWidget(intro)
        layout.addWidget(self._build_list())
        layout.addWidget(self._build_editor())
        layout.addWidget(self._build_add())
        layout.addWidget(self._build_main())
        layout.addStretch(1)
        self.setWidget(body)
        self.load_from_design()
        self.set_selection(self._selection)
        if self._result is not None:
            self.set_result(self._result)

    # --- building ------------------------------------------------------------------------
    def _build_main(self) -> QGroupBox:
        box = QGroupBox("Main workload")
        column = QVBoxLayout(box)
        self.main_label = QLabel()
        self.main_label.setWordWrap(True)
        self.main_label.setTextFormat(Qt.TextFormat.RichText)
        column.addWidget(self.main_label)
        self.main_partition = PartitionEditor(main=True)
        column.addWidget(self.main_partition)
        self.main_error = _error_label()
        column.addWidget(self.main_error)
        self.main_apply = QPushButton("Apply")
        self.main_apply.setToolTip("Put the main workload on this partition (one undo step)")
        self.main_apply.clicked.connect(self.apply_main)
        column.addLayout(self._buttons(self.main_apply))
        return box

    def _build_list(self) -> QGroupBox:
        box = QGroupBox("Services")
        column = QVBoxLayout(box)
        table = QTableWidget(0, len(COLUMNS))
        table.setHorizontalHeaderLabels([name for name, _ in COLUMNS])
        for col, (_, tip) in enumerate(COLUMNS):
            table.horizontalHeaderItem(col).setToolTip(tip)
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setWordWrap(False)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setHighlightSections(False)
        table.itemSelectionChanged.connect(self._row_chosen)
        self.table = table
        column.addWidget(table)
        self.empty_note = QLabel("No services: the design runs its main workload only. Add one below.")
        self.empty_note.setWordWrap(True)
        self.empty_note.setStyleSheet("color: #607d8b; font-style: italic;")
        column.addWidget(self.empty_note)
        self.list_error = _error_label()
        column.addWidget(self.list_error)
        self.remove = QPushButton("Remove")
        self.remove.setToolTip("Remove the selected service (one undo step)")
        self.remove.clicked.connect(self.remove_selected)
        column.addLayout(self._buttons(self.remove))
        return box

    def _build_editor(self) -> QGroupBox:
        box = QGroupBox("Service")
        self.editor_box = box
        column = QVBoxLayout(box)
        form = QFormLayout()
        self.edit_name = QLineEdit()
        form.addRow("Name", self.edit_name)
        self.edit_preset = QComboBox()
        self.edit_preset.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.edit_preset.setToolTip("Serve a preset instead (Apply to use it), or edit the workload's fields")
        self.edit_preset.activated.connect(self._edit_preset_chosen)
        form.addRow("Workload", self.edit_preset)
        column.addLayout(form)
        column.addWidget(QLabel("Runs on"))
        self.edit_partition = PartitionEditor(main=False)
        column.addWidget(self.edit_partition)
        self.fields_toggle = QToolButton()
        self.fields_toggle.setCheckable(True)
        self.fields_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.fields_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.fields_toggle.setText("The workload's fields")
        self.fields_toggle.setStyleSheet("QToolButton { border: none; }")
        self.fields_toggle.toggled.connect(self._show_fields)
        column.addWidget(self.fields_toggle)
        self.form = InferenceForm()
        self.form.edited.connect(self._form_was_edited)
        self.form.hide()
        column.addWidget(self.form)
        self.edit_error = _error_label()
        column.addWidget(self.edit_error)
        self.edit_apply = QPushButton("Apply")
        self.edit_apply.setToolTip("Change the service as shown (one undo step)")
        self.edit_apply.clicked.connect(self.apply_service)
        self.edit_revert = QPushButton("Revert")
        self.edit_revert.clicked.connect(lambda: self._show_service(self._service(self._selected)))
        column.addLayout(self._buttons(self.edit_revert, self.edit_apply))
        return box

    def _build_add(self) -> QGroupBox:
        box = QGroupBox("Add a service")
        column = QVBoxLayout(box)
        form = QFormLayout()
        self.add_name = QLineEdit()
        form.addRow("Name", self.add_name)
        self.add_workload = QComboBox()
        self.add_workload.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.add_workload.activated.connect(self._add_workload_picked)
        form.addRow("Workload", self.add_workload)
        column.addLayout(form)
        column.addWidget(QLabel("Runs on"))
        self.add_partition = PartitionEditor(main=False, named=False)
        column.addWidget(self.add_partition)
        self.add_error = _error_label()
        column.addWidget(self.add_error)
        self.add_button = QPushButton("Add")
        self.add_button.setToolTip("Add the service (one undo step)")
        self.add_button.clicked.connect(self.add)
        column.addLayout(self._buttons(self.add_button))
        return box

    @staticmethod
    def _buttons(*buttons: QPushButton) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addStretch(1)
        for button in buttons:
            row.addWidget(button)
        return row

    # --- model -> tab --------------------------------------------------------------------
    def load_from_design(self) -> None:
        """Show the design's services and partitions (after any change of them, or another
        design)."""
        if not self.body_built:
            return  # the tab shows the design when it is made
        design = self.document.design
        self._fill_add_workloads()
        self.main_partition.load(design.workload_partition)
        self._show_main()
        names = [service.name for service in design.services]
        self.add_name.setPlaceholderText(self._free_name(names))
        self._fill_table()
        if self._selected not in names:
            self._selected = names[0] if names else None
        self._select_row(self._selected)
        self._show_service(self._service(self._selected))

    def set_result(self, result) -> None:
        """The latest evaluation: the GPUs of each partition."""
        self._result = result
        if self.body_built:
            self._show_main()
            self._fill_gpus()
            if not self._add_chosen_by_user and self._offered_on != self._accelerator_id():
                self._fill_add_workloads()  # other GPUs (or the first known): offer one that serves

    def set_selection(self, paths: list[str]) -> None:
        """The design paths selected on the canvas: what "Use the selection" takes."""
        self._selection = list(paths)
        if not self.body_built:
            return
        for editor in (self.main_partition, self.edit_partition, self.add_partition):
            editor.set_selection(paths)

    def _service(self, name: str | None) -> Service | None:
        return next((s for s in self.document.design.services if s.name == name), None)

    @staticmethod
    def _free_name(names: list[str]) -> str:
        n = len(names) + 1
        while f"service-{n}" in names:
            n += 1
        return f"service-{n}"

    def _show_main(self) -> None:
        design = self.document.design
        workload = design.workload
        if workload is None:
            text = "<i>No main workload</i> (choose one in the Workload tab)."
        else:
            kind = "inference" if isinstance(workload, InferenceWorkload) else "training"
            text = f"<b>{escape(workload.name)}</b> ({kind})"
        view = self._views().get(None)
        if view is not None:
            where = (f"{num(view.gpus)} {escape(view.fabric.accelerator.id)} GPUs" if view.fabric is not None
                     else "<span style='color:#c62828'>no GPUs (see the Warnings)</span>")
            text += f" on partition <b>{escape(view.name)}</b>: {where}"
        self.main_label.setText(text)

    def _views(self) -> dict:
        """Partition views of the latest evaluation: service name -> view, None -> the main's."""
        ev = self._result.evaluation if self._result is not None else None
        if ev is None or ev.partitions is None:
            return {}
        views = {service.name: service.partition for service in ev.services}
        if ev.partitions.main is not None:
            views[None] = ev.partitions.main
        return views

    def _fill_table(self) -> None:
        design = self.document.design
        colors = partition_colors(design)
        table = self.table
        table.blockSignals(True)
        table.setRowCount(len(design.services))
        for row, service in enumerate(design.services):
            where = service.partition.describe()
            # a partition named after its service is not named again
            partition = QTableWidgetItem(f"{service.partition.name}: {where}" if service.partition.name else where)
            partition.setData(Qt.ItemDataRole.DecorationRole, QColor(colors[service.partition_name]))
            partition.setToolTip(f"Partition {service.partition_name}: {where}")
            workload = QTableWidgetItem(service.workload.name)
            workload.setToolTip(service.workload.name)
            for col, item in enumerate((QTableWidgetItem(service.name), partition, workload, QTableWidgetItem("—"))):
                table.setItem(row, col, item)
            table.item(row, 3).setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        table.blockSignals(False)
        self._fill_gpus()
        rows = min(max(len(design.services), 1), SHOWN_ROWS)
        table.setFixedHeight(table.horizontalHeader().sizeHint().height() + rows * table.verticalHeader().defaultSectionSize()
                             + 2 * table.frameWidth())
        table.setVisible(bool(design.services))
        self.empty_note.setVisible(not design.services)
        self.remove.setEnabled(bool(design.services))

    def _fill_gpus(self) -> None:
        views = self._views()
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 3)
            view = views.get(self.table.item(row, 0).text())
            if view is None:
                item.setText("—")
                item.setToolTip("Not evaluated yet")
            elif view.fabric is None:
                item.setText("✗ none")
                item.setToolTip("\n".join(d.message for d in view.problems))
                item.setForeground(QColor("#c62828"))
            else:
                item.setText(num(view.gpus))
                item.setToolTip(f"{view.gpus:,} {view.fabric.accelerator.id} GPUs ({view.describe()})")
                item.setForeground(QColor("#263238"))

    def _select_row(self, name: str | None) -> None:
        self.table.blockSignals(True)
        self.table.clearSelection()
        for row in range(self.table.rowCount()):
            if self.table.item(row, 0).text() == name:
                self.table.selectRow(row)
        self.table.blockSignals(False)

    def _row_chosen(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows:
            self._selected = self.table.item(rows[0].row(), 0).text()
            self._show_service(self._service(self._selected))

    def select_service(self, name: str) -> None:
        """Show service ``name`` in the editor (as a click on its row)."""
        self._selected = name
        self._select_row(name)
        self._show_service(self._service(name))

    def _show_service(self, service: Service | None) -> None:
        self.editor_box.setVisible(service is not None)
        _say(self.edit_error, "")
        if service is None:
            return
        self.editor_box.setTitle(f"Service {service.name}")
        self.edit_name.setText(service.name)
        self.edit_partition.load(service.partition, default_gpus(service.workload))
        self._load_form(service.workload)
        self.edit_preset.blockSignals(True)
        self.edit_preset.clear()
        self.edit_preset.addItem(service.workload.name, None)
        self.edit_preset.setItemData(0, "Its workload as it is (edit its fields below)", Qt.ItemDataRole.ToolTipRole)
        for name, preset in self._presets.items():
            if preset != service.workload:
                self.edit_preset.addItem(f"{name} — {preset.name}", name)
        self.edit_preset.setCurrentIndex(0)
        self.edit_preset.blockSignals(False)

    def _load_form(self, workload: InferenceWorkload) -> None:
        self._edit_base = workload
        self._form_edited = False
        self.form.load(workload)

    def _fill_add_workloads(self) -> None:
        combo = self.add_workload
        chosen = combo.currentData() if self._add_chosen_by_user else self._first_that_serves()
        combo.clear()
        main = self.document.design.workload
        if isinstance(main, InferenceWorkload):
            combo.addItem(f"Copy of the main workload — {main.name}", COPY_OF_MAIN)
        for name, preset in self._presets.items():
            combo.addItem(f"{name} — {preset.name}", name)
        combo.setCurrentIndex(max(0, combo.findData(chosen)))
        if combo.currentData() != self._add_shown:  # another workload than before: its GPU count
            self._add_workload_chosen()

    def _first_that_serves(self) -> str | None:
        """Until the user picks one, "Add a service" offers the first preset that serves on
        the GPUs it would start with (the first by name, DeepSeek-R1 INT8, exceeds an H100's
        memory); the first by name before the first evaluation, when the GPUs are unknown."""
        fabric = self._fabric()
        self._offered_on = self._accelerator_id()
        if fabric is None:
            return next(iter(self._presets), None)
        assumptions = self.document.design.assumptions or Assumptions()
        return first_service_that_runs(fabric, assumptions.inference, list(self._presets.items()),
                                       default_gpus)

    # --- reactions -----------------------------------------------------------------------
    def _show_fields(self, on: bool) -> None:
        self.fields_toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.form.setVisible(on)

    def _form_was_edited(self) -> None:
        self._form_edited = True

    def _edit_preset_chosen(self, _index: int) -> None:
        name = self.edit_preset.currentData()
        service = self._service(self._selected)
        workload = self._presets.get(name) if name else (service.workload if service is not None else None)
        if workload is not None:
            self._load_form(workload)

    def _add_workload(self) -> InferenceWorkload | None:
        key = self.add_workload.currentData()
        if key == COPY_OF_MAIN:
            main = self.document.design.workload
            return main if isinstance(main, InferenceWorkload) else None
        return self._presets.get(key)

    def _fabric(self):
        """The design's fabric as the latest evaluation saw it (None before the first)."""
        return self._result.evaluation.topology.fabric if self._result is not None else None

    def _accelerator_id(self) -> str | None:
        fabric = self._fabric()
        return fabric.accelerator.id if fabric is not None else None

    def _add_workload_picked(self, _index: int) -> None:
        self._add_chosen_by_user = True
        self._add_workload_chosen()

    def _add_workload_chosen(self, *_args) -> None:
        """A new service starts on its workload's own GPU count (the selection's blocks once
        taken)."""
        self._add_shown = self.add_workload.currentData()
        workload = self._add_workload()
        if workload is not None and self.add_partition.mode() == GPUS:
            self.add_partition.gpus.setValue(default_gpus(workload))

    # --- tab -> model (each one undo step) ---------------------------------------------------
    def _push(self, operation, text: str, error: QLabel) -> bool:
        try:
            self.document.push(operation, text)
        except DesignError as exc:
            _say(error, str(exc))
            self.error.emit(str(exc))
            return False
        _say(error, "")
        return True

    def _refuse(self, error: QLabel, exc: DesignError) -> None:
        _say(error, str(exc))
        self.error.emit(str(exc))

    def apply_main(self) -> None:
        try:
            partition = self.main_partition.partition()
        except DesignError as exc:
            self._refuse(self.main_error, exc)
            return
        if partition == self.document.design.workload_partition:
            _say(self.main_error, "")
            return
        what = f"on {partition.describe()}" if partition is not None else "on what the services leave"
        self._push(SetWorkloadPartition(partition), f"Main workload {what}", self.main_error)

    def add(self) -> None:
        names = [service.name for service in self.document.design.services]
        name = self.add_name.text().strip() or self._free_name(names)
        workload = self._add_workload()
        try:
            if workload is None:
                raise DesignError("choose the service's workload")
            service = Service(name, self.add_partition.partition(), workload)
        except DesignError as exc:
            self._refuse(self.add_error, exc)
            return
        before = self._selected
        self._selected = name  # shown in the editor once added
        if self._push(AddService(service), f"Add service {name}", self.add_error):
            self.add_name.clear()
        else:
            self._selected = before

    def remove_selected(self) -> None:
        service = self._service(self._selected)
        if service is not None:
            self._push(RemoveService(service.name), f"Remove service {service.name}", self.list_error)

    def _edited_workload(self, index: int) -> InferenceWorkload:
        """The editor's workload: what it was loaded with unless its fields were edited."""
        if not self._form_edited and self._edit_base is not None:
            return self._edit_base
        base = inference_workload_to_dict(self._edit_base) if self._edit_base is not None else None
        return inference_workload_from_dict(self.form.form_dict(base), f"services[{index}].workload")

    def apply_service(self) -> None:
        service = self._service(self._selected)
        if service is None:
            return
        index = self.document.design.services.index(service)
        try:
            changed = Service(self.edit_name.text().strip(), self.edit_partition.partition(),
                              self._edited_workload(index))
        except DesignError as exc:
            self._refuse(self.edit_error, exc)
            return
        if changed == service:
            _say(self.edit_error, "")
            return
        self._selected = changed.name
        if not self._push(ChangeService(service.name, changed), f"Change service {service.name}", self.edit_error):
            self._selected = service.name

