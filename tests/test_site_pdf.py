"""The floor plan as PDF: ``export P -o floor.pdf`` (Qt draws the floor plan's SVG onto a PDF
page; designer/site/site_export.py). A file that opens: the PDF header, one page, vector content
(the racks as rectangles) and the hall text, read back through the fonts' ToUnicode maps."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest

from core.errors import DesignError
from core.project import load_project
from designer.site.site_export import MAX_PAGE_PT, export_site, site_export_for, svg_pdf_bytes

EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "examples"


def streams(data: bytes) -> list[bytes]:
    out = []
    for raw in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S):
        try:
            out.append(zlib.decompress(raw))
        except zlib.error:
            out.append(raw)
    return out


def pdf_text(data: bytes) -> str:
    """The text a PDF shows, from its glyph codes and the fonts' ToUnicode maps."""
    glyphs: dict[str, str] = {}
    parts = streams(data)
    for s in parts:
        if b"begincmap" not in s:
            continue
        for first, last, to in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(\[[^\]]*\]|<[0-9A-Fa-f]+>)", s):
            start, stop = int(first, 16), int(last, 16)
            targets = re.findall(rb"<([0-9A-Fa-f]+)>", to)
            for k, code in enumerate(range(start, stop + 1)):
                uni = (targets[k] if to.startswith(b"[") else b"%04x" % (int(targets[0], 16) + k))
                glyphs[f"{code:04x}"] = bytes.fromhex(uni.decode()).decode("utf-16-be")
    shown = []
    for s in parts:
        for code in re.findall(rb"<([0-9A-Fa-f]+)>\s*Tj", s):
            hexes = code.decode().lower()
            shown.append("".join(glyphs.get(hexes[i:i + 4], "?") for i in range(0, len(hexes), 4)))
    return "".join(shown)


def test_a_floor_plan_pdf_opens_with_its_racks_and_halls(tmp_path):
    design = load_project(EXAMPLES / "dgx-h100-superpod-4su.json")
    out = tmp_path / "floor.pdf"
    assert site_export_for(out) == "floor"
    export_site(design, out, "floor")
    data = out.read_bytes()
    assert data.startswith(b"%PDF-1.") and data.rstrip().endswith(b"%%EOF")
    assert len(re.findall(rb"/Type\s*/Page\b", data)) == 1
    content = max(streams(data), key=lambda s: s.count(b" re\n"))
    # vectors, not a picture: 40 racks, the hall and the background as rectangles
    assert content.count(b" re\n") >= 40 and not re.search(rb"/Subtype\s*/Image", data)
    text = re.sub(r"\s", "", pdf_text(data))
    assert "hall1" in text and "kWof" in text


def test_a_big_campus_fits_one_pdf_page():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="40000" height="20000">'
           '<rect width="40000" height="20000" fill="white"/><text x="10" y="20">hall 1</text></svg>')
    data = svg_pdf_bytes(svg, "big")
    box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)", data)
    assert float(box[1]) == pytest.approx(MAX_PAGE_PT, rel=1e-3)
    assert float(box[2]) == pytest.approx(MAX_PAGE_PT / 2, rel=1e-3)


def test_the_other_site_files_refuse_pdf(tmp_path):
    design = load_project(EXAMPLES / "gb200-nvl72-su.json")
    with pytest.raises(DesignError, match="cables export is written as .csv"):
        export_site(design, tmp_path / "cables.pdf", "cables")
    assert not (tmp_path / "cables.pdf").exists()
    assert site_export_for(Path("plan.pdf")) is None  # any other PDF is the design diagram


def test_the_export_command_writes_floor_pdf(tmp_path):
    from designer.cli import main

    out = tmp_path / "floor.pdf"
    assert main(["export", str(EXAMPLES / "gb200-nvl72-su.json"), "-o", str(out)]) == 0
    data = out.read_bytes()
    assert data.startswith(b"%PDF-1.") and "hall1" in re.sub(r"\s", "", pdf_text(data))
