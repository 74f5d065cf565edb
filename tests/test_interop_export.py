"""GraphML and diagrams.net exports: what a graph tool or a diagram editor reads back."""

import dataclasses
import xml.etree.ElementTree as ET

import networkx as nx
import pytest

from core.errors import DesignError
from core.generators import FatTreeOptions, generate_fat_tree
from core.interop import graphml
from core.interop.drawio import drawio_xml
from core.interop.graphml import design_graph
from core.project import load_project, save_project
from designer.cli import main
from tests.test_cli import ROOT

SUPERPOD = ROOT / "resources" / "examples" / "dgx-h100-superpod-4su.json"


@pytest.fixture(scope="module")
def pod512(catalog):
    return generate_fat_tree(FatTreeOptions(gpus=512, server="DGX-H100", switch="QM9700"), catalog)


def test_device_graph_has_every_device_and_cable(pod512, catalog):
    graph = design_graph(pod512, catalog, "device")
    # 64 servers, 16 leaves, 8 spines
    assert graph.number_of_nodes() == 88
    kinds = nx.get_node_attributes(graph, "tier")
    assert sorted(set(kinds.values())) == ["compute", "leaf", "spine"]
    # 1,024 cables: each server's 8 to 8 leaves (512 bundles of one), each leaf's 32 uplinks to
    # 8 spines (128 bundles of four)
    assert sum(count for *_, count in graph.edges(data="count")) == 1024
    assert graph.number_of_edges() == 512 + 128
    assert {speed for *_, speed in graph.edges(data="speed_gbit_s")} == {400.0}
    server = "su/nodes#0"
    assert graph.nodes[server]["catalog_id"] == "DGX-H100" and graph.degree(server) == 8


def test_block_graph_is_the_design_as_stored(pod512, catalog):
    graph = design_graph(pod512, catalog, "block")
    assert dict(graph.nodes(data="count")) == {"su/nodes": 64, "su/leaf": 16, "spine": 8}
    assert sorted(count for *_, count in graph.edges(data="count")) == [512, 512]


def test_graphml_file_reads_back_in_networkx(pod512, catalog, tmp_path):
    path = tmp_path / "pod.graphml"
    graphml.write_graphml(pod512, catalog, path)
    back = nx.read_graphml(path, force_multigraph=True)
    assert back.number_of_nodes() == 88 and back.number_of_edges() == 640
    assert back.nodes["spine#3"]["catalog_id"] == "QM9700"


def test_a_huge_device_graph_is_refused_before_it_is_built(catalog, monkeypatch, pod512, tmp_path):
    monkeypatch.setattr(graphml, "MAX_DEVICE_UNITS", 50)
    path = tmp_path / "x.graphml"
    with pytest.raises(DesignError, match="use --level block"):
        graphml.write_graphml(pod512, catalog, path)
    assert not path.exists()
    graphml.write_graphml(pod512, catalog, path, level="block")
    assert path.exists()


def test_drawio_has_a_page_per_block_and_an_edge_per_link(catalog):
    design = load_project(SUPERPOD, catalog)
    root = ET.fromstring(drawio_xml(design))
    pages = root.findall("diagram")
    blocks = list(design.root.iter_blocks())
    assert len(pages) == 1 + len(blocks)
    for page, block in zip(pages, [design.root] + [b for _, b in blocks]):
        cells = page.findall("./mxGraphModel/root/mxCell")
        vertices = [c for c in cells if c.get("vertex") == "1"]
        edges = [c for c in cells if c.get("edge") == "1"]
        assert len(vertices) == len(block.children)
        ids = {c.get("id") for c in vertices}
        assert all(e.get("source") in ids and e.get("target") in ids for e in edges)
        assert len(edges) == len(block.links)
    top = pages[0].findall("./mxGraphModel/root/mxCell")
    assert any("x1024 400G" in (c.get("value") or "") for c in top)


def test_drawio_labels_show_names_as_typed(catalog, pod512):
    design = pod512.snapshot()
    design.root.children["spine"] = dataclasses.replace(design.root.children["spine"], name="<i>Spine & co")
    root = ET.fromstring(drawio_xml(design))  # well-formed
    labels = [c.get("value") for c in root.iter("mxCell") if c.get("vertex") == "1"]
    # a label is HTML in draw.io: the name's own markup is escaped, so it shows as typed
    assert "<b>&lt;i&gt;Spine &amp; co</b> x8<br>QM9700, spine" in labels


@pytest.mark.parametrize("suffix, check", [
    (".graphml", lambda p: nx.read_graphml(p).number_of_nodes() == 88),
    (".drawio", lambda p: ET.parse(p).getroot().tag == "mxfile"),
    (".topo", lambda p: p.read_text().count("\nSwitch\t") == 24),
])
def test_cli_export_picks_the_format_by_extension(pod512, tmp_path, suffix, check):
    project = tmp_path / "pod.json"
    save_project(pod512, project)
    out = tmp_path / f"pod{suffix}"
    assert main(["export", str(project), "-o", str(out)]) == 0
    assert check(out)


def test_cli_export_error_leaves_no_file(pod512, tmp_path, capsys, monkeypatch):
    project = tmp_path / "pod.json"
    save_project(pod512, project)
    monkeypatch.setattr(graphml, "MAX_DEVICE_UNITS", 10)
    out = tmp_path / "pod.graphml"
    assert main(["export", str(project), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "use --level block" in err and err.count("\n") == 1
    assert not out.exists()
