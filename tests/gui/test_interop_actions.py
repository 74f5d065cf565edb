"""File > Import Fabric Dump… and the data exports in the window."""

import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
from PySide6.QtWidgets import QDialog, QFileDialog

from designer.interop.interop_actions import ImportDumpDialog

DUMPS = Path(__file__).resolve().parents[1] / "data" / "ibnetdiscover"


def test_import_opens_the_fabric_untitled(window, small_design):
    window.load_design(small_design, None)
    assert window.interop.import_dump(DUMPS / "manpage-example.txt", "DGX-A100", "QM8700", None)
    assert window.document.path is None
    nodes = {n.catalog_id: n.count for _, n in window.document.design.root.iter_nodes()}
    assert nodes == {"DGX-A100": 4, "QM8700": 2}
    assert "4 hosts, 2 switches and 7 cables" in window.statusBar().currentMessage()


def test_a_bad_dump_keeps_the_open_design(window, small_design, no_modal_dialogs, tmp_path):
    window.load_design(small_design, None)
    bad = tmp_path / "bad.txt"
    bad.write_text("Switch 36 nonsense\n")
    assert not window.interop.import_dump(bad, "DGX-A100", None, None)
    assert window.document.design.name == small_design.name
    assert no_modal_dialogs[-1] == ("critical", "bad.txt:1: not an ibnetdiscover line: 'Switch 36 nonsense'")


def test_the_dialog_lists_servers_and_switches(window, qtbot, monkeypatch):
    dialog = ImportDumpDialog(window.catalog, window)
    qtbot.addWidget(dialog)
    servers = [dialog.server.itemData(i) for i in range(dialog.server.count())]
    switches = [dialog.switch.itemData(i) for i in range(dialog.switch.count())]
    assert "DGX-H100" in servers and "QM9700" in switches and servers[0] is None and switches[0] is None
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(DUMPS / "manpage-example.txt"), ""))
    dialog._browse(dialog.dump, "")
    assert dialog.dump.text().endswith("manpage-example.txt")


def test_file_menu_import_runs_through_the_dialog(window, monkeypatch):
    def accept(dialog):
        dialog.dump.setText(str(DUMPS / "manpage-example.txt"))
        dialog.server.setCurrentIndex(dialog.server.findData("DGX-A100"))
        dialog.switch.setCurrentIndex(dialog.switch.findData("QM8700"))
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(ImportDumpDialog, "exec", accept)
    window.interop.import_action.trigger()
    assert sum(n.count for _, n in window.document.design.root.iter_nodes()) == 6


def test_export_menu_writes_graphml_drawio_topology_and_astra_sim(window, small_design, tmp_path, monkeypatch):
    window.load_design(small_design, None)
    labels = [a.text() for a in window.interop.export_actions]
    assert labels == ["Design as &GraphML (devices)…", "Design as GraphML (&blocks)…",
                      "Diagram as &draw.io…", "InfiniBand &topology file…", "&ASTRA-sim inputs (folder)…"]
    names = ("d.graphml", "b.graphml", "x.drawio", "x.topo", "x.astra")
    for action, name in zip(window.interop.export_actions, names):
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, n=name, **k: (str(tmp_path / n), ""))
        action.trigger()
    assert nx.read_graphml(tmp_path / "d.graphml").number_of_nodes() == 128 + 32 + 16
    assert nx.read_graphml(tmp_path / "b.graphml").number_of_nodes() == 3
    assert ET.parse(tmp_path / "x.drawio").getroot().tag == "mxfile"
    assert (tmp_path / "x.topo").read_text().startswith("#\n# Topology file")
    assert sorted(p.name for p in (tmp_path / "x.astra").iterdir()) == [
        "README.md", "network.yml", "remote_memory.json", "system.json"]
