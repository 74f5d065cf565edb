"""The floor plan's files: the cable schedule adds up to the design's links, the rack contents
to its units, the SVGs are well-formed, and a wrong name fails in one line writing nothing."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from core.errors import DesignError
from core.evaluate import evaluate
from core.project import load_project
from designer.site.site_export import export_site, site_export_for

EXAMPLE = Path(__file__).resolve().parent.parent / "resources" / "examples" / "dgx-h100-superpod-4su.json"


@pytest.mark.parametrize("name,what", [("cables.csv", "cables"), ("plan.csv", "cables"),
                                       ("racks.csv", "racks"), ("racks.svg", "racks"),
                                       ("floor.svg", "floor"), ("diagram.svg", None),
                                       ("x.png", None), ("x.graphml", None)])
def test_the_file_name_picks_the_export(name, what):
    assert site_export_for(Path(name)) == what


def test_cable_schedule_counts_every_link_once(tmp_path, catalog):
    design = load_project(EXAMPLE)
    ev = evaluate(design, catalog)
    export_site(design, tmp_path / "cables.csv", "cables")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "cables.csv").read_text())))
    assert sum(int(r["count"]) for r in rows) == ev.counts.links
    assert {r["medium"] for r in rows} == {"mmf"}
    assert max(float(r["length_m"]) for r in rows) == pytest.approx(
        ev.site.cable_length_m["max"], abs=0.05)
    assert all(r["from_location"].startswith("hall 1/row ") for r in rows)


def test_rack_contents_hold_every_unit(tmp_path, catalog):
    design = load_project(EXAMPLE)
    export_site(design, tmp_path / "racks.csv", "racks")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "racks.csv").read_text())))
    by_id: dict[str, int] = {}
    for r in rows:
        by_id[r["catalog_id"]] = by_id.get(r["catalog_id"], 0) + int(r["units"])
    assert by_id["DGX-H100"] == 128 and by_id["AI400X2"] == 4
    assert len({r["rack"] for r in rows}) == 40


@pytest.mark.parametrize("name,what", [("floor.svg", "floor"), ("racks.svg", "racks")])
def test_svgs_are_well_formed(tmp_path, name, what):
    export_site(load_project(EXAMPLE), tmp_path / name, what)
    root = ET.fromstring((tmp_path / name).read_text())
    assert root.tag.endswith("svg")


def test_a_wrong_extension_fails_in_one_line_and_writes_nothing(tmp_path):
    with pytest.raises(DesignError) as error:
        export_site(load_project(EXAMPLE), tmp_path / "floor.png", "floor")
    assert "floor.png" in str(error.value) and "\n" not in str(error.value)
    assert not list(tmp_path.iterdir())
