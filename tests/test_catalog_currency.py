"""The 2025-26 catalog entries: each is there with its year, status, source, evidence tag and
price; its key figures agree with the figures its own source text quotes; the catalog command
finds them by year, status and vendor; and the new systems evaluate to plausible numbers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.catalog import load_catalog
from core.catalog_prices import price_problem
from core.errors import CatalogError
from designer.cli import main

ROOT = Path(__file__).resolve().parent.parent
HARDWARE_DOC = ROOT / "docs" / "reference" / "hardware-2025-26.md"
PRICES_DOC = ROOT / "docs" / "reference" / "prices-2025-26.md"

# The ids other developers rely on (shared interface 1), and the parts those need.
NEW_IDS = {
    "GB300": "accelerator", "B300": "accelerator", "MI355X": "accelerator",
    "Ascend-950DT": "accelerator", "Rubin": "accelerator", "Hygon-DCU": "accelerator",
    "GB300-NVL72": "supernode", "GB300-Compute-Tray": "server", "DGX-B300": "server",
    "VR-NVL144": "supernode", "MI355X-Platform": "server", "Ascend-950-SuperPoD": "supernode",
    "scaleX-SuperNode": "supernode", "Hygon-DCU-Server": "server",
    "BlueField-4": "dpu", "AMD-Pollara-400": "nic", "scaleFabric-400G-NIC": "nic",
    "Panshi-DPU": "dpu", "ConnectX-9": "nic",
    "Q3450-CPO": "switch", "SN6800-CPO": "switch", "TH6": "switch", "TH-Ultra": "switch",
    "scaleFabric-400G": "switch", "NVLink6-Switch-Chip": "switch",
    "ParaStor": "storage", "OSFP-1.6T-DR8": "transceiver",
}
# Not yet shipping when these entries were written: a design built on them is a plan.
ANNOUNCED = {"VR-NVL144", "Rubin", "NVLink6-Switch-Chip", "ConnectX-9", "BlueField-4",
             "Ascend-950-SuperPoD", "Ascend-950DT", "SN6800-CPO"}


@pytest.fixture(scope="module")
def builtin():
    return load_catalog(include_user=False)


def _section_headings(path: Path) -> set[str]:
    return set(re.findall(r"^## (\d+)\.", path.read_text(encoding="utf-8"), re.M))


# --------------------------------------------------------------------------- presence


@pytest.mark.parametrize("component_id", sorted(NEW_IDS))
def test_every_new_entry_has_year_status_source_price_and_evidence(builtin, component_id):
    spec = builtin.get(component_id)
    assert spec.kind == NEW_IDS[component_id]
    assert 2024 <= spec.year <= 2026
    assert spec.status == ("announced" if component_id in ANNOUNCED else "shipping")
    # the source names the section of the reference file that holds the figures, and it exists
    cited = re.match(r"hardware-2025-26\.md §(\d+)", spec.source)
    assert cited and cited.group(1) in _section_headings(HARDWARE_DOC), spec.source[:60]
    assert re.fullmatch(r"[PSE](/[PSE])*", spec.confidence)
    price = spec.price
    assert price_problem(price.to_json(), 100_000) is None
    cited = re.match(r"prices-2025-26\.md §(\d+)", price.source)
    assert cited and cited.group(1) in _section_headings(PRICES_DOC)
    # a price or figure nobody published says how it was reached
    if price.evidence == "estimate":
        assert len(price.note or "") > 40
    if "E" in spec.confidence.split("/"):
        assert re.search(r"\bE\b|ESTIMATE", spec.notes), "an estimate must say which figure"


def test_announced_hardware_says_so_where_a_user_reads_it(builtin):
    for component_id in ANNOUNCED:
        spec = builtin.get(component_id)
        assert "announced" in spec.name.lower() or spec.notes.startswith("ANNOUNCED"), component_id


def test_every_price_of_the_evidence_file_is_the_entrys_price(builtin):
    # prices-2025-26.md is the evidence a reviewer reads: it must not drift from the catalog
    rows = re.findall(r"^\| ([\w.-]+) \| ([\d,]+) \| (\d{4}) \| (\w+) \|", PRICES_DOC.read_text(encoding="utf-8"), re.M)
    assert {row[0] for row in rows} == set(NEW_IDS)
    for component_id, usd, year, evidence in rows:
        price = builtin.get(component_id).price
        assert (price.usd, price.year, price.evidence) == (int(usd.replace(",", "")), int(year), evidence)


# --------------------------------------------------------------------------- figures vs sources

def _value(spec, path: str):
    value = spec.to_json()
    for part in path.split("."):
        value = value[part]
    return value


def _num(text: str) -> float:
    return float(text.replace(",", ""))


# (id, field, pattern in the entry's source + notes, what the captured figures make the field).
# Each row reads the figure the way its citation states it and checks the catalog number
# follows from it, so an edit to either side without the other fails here.
QUOTED = [
    ("GB300", "tflops_dense.bf16", r"FP16/BF16 ([\d.]+) PF", lambda g: _num(g[0]) * 1000),
    ("GB300", "tflops_dense.fp8", r"FP8 ([\d.]+) PF", lambda g: _num(g[0]) * 1000),
    ("GB300", "tflops_dense.fp4", r"FP4 ([\d.]+) PF", lambda g: _num(g[0]) * 1000),
    ("GB300", "tflops_dense.tf32", r"TF32 ([\d.]+) PF", lambda g: _num(g[0]) * 1000),
    ("GB300", "hbm_gb", r"(\d+) GB HBM3E", lambda g: _num(g[0])),
    ("GB300", "hbm_tbyte_s", r"HBM3E, ([\d.]+) TB/s", lambda g: _num(g[0])),
    ("GB300", "tdp_w", r"max TDP ([\d.]+) kW", lambda g: _num(g[0]) * 1000),
    # the rack totals divided by its 72 GPUs
    ("GB300", "tflops_dense.bf16", r"rack aggregate ([\d,]+) PF BF16", lambda g: _num(g[0]) * 1000 / 72),
    ("GB300", "tflops_dense.fp4", r"/ ([\d,]+) PF FP4", lambda g: _num(g[0]) * 1000 / 72),
    ("GB300", "hbm_tbyte_s", r"PF FP4 / ([\d,]+) TB/s", lambda g: _num(g[0]) / 72),
    ("GB300", "scale_up_gbyte_s_per_dir", r"/ ([\d,]+) TB/s NVLink", lambda g: _num(g[0]) * 1000 / 72 / 2),
    ("B300", "tflops_dense.bf16", r"FP16/BF16 ([\d.]+) PF", lambda g: _num(g[0]) * 1000),
    ("B300", "tflops_dense.fp8", r"FP8 ([\d.]+) PF", lambda g: _num(g[0]) * 1000),
    ("B300", "tflops_dense.fp4", r"FP4 ([\d.]+) PF", lambda g: _num(g[0]) * 1000),
    ("B300", "hbm_gb", r"(\d+) GB HBM3E", lambda g: _num(g[0])),
    ("B300", "hbm_tbyte_s", r"HBM3E, ([\d.]+) TB/s", lambda g: _num(g[0])),
    ("B300", "tdp_w", r"max TDP ([\d.]+) kW", lambda g: _num(g[0]) * 1000),
    ("GB300-NVL72", "max_power_kw", r"full rack up to ([\d.]+) kW", lambda g: _num(g[0])),
    ("GB300-NVL72", "accelerators", r"(\d+) compute trays of (\d+) Blackwell Ultra", lambda g: _num(g[0]) * _num(g[1])),
    ("GB300-NVL72", "nics", r"(\d+) ConnectX-8 NICs|: (\d+) ConnectX-8", lambda g: _num(next(x for x in g if x))),
    ("GB300-NVL72", "dpus", r"(\d+) BlueField DPUs", lambda g: _num(g[0])),
    ("GB300-Compute-Tray", "max_power_kw", r"~([\d.]+) kW per compute tray", lambda g: _num(g[0])),
    ("DGX-B300", "max_power_kw", r"8 x B300, ~([\d.]+) kW", lambda g: _num(g[0])),
    ("DGX-B300", "per_rack", r"\d+ kW per (\d+)-node rack", lambda g: _num(g[0])),
    ("DGX-B300", "nics", r"(\d+) x 800G CX-8", lambda g: _num(g[0])),
    ("DGX-B300", "rack_units", r"(\d+)U, 2 x Xeon", lambda g: _num(g[0])),
    ("MI355X", "tdp_w", r"'([\d.]+) kW, 288 GB", lambda g: _num(g[0]) * 1000),
    ("MI355X", "hbm_gb", r"(\d+) GB HBM3E", lambda g: _num(g[0])),
    ("MI355X", "hbm_tbyte_s", r"(\d+) TBps", lambda g: _num(g[0])),
    ("MI355X", "tflops_dense.fp8", r"FP8 'five petaflops'", lambda g: 5000),
    ("MI355X", "tflops_dense.fp4", r"\(ISC 2025, ([\d.]+) PF FP4 with sparsity\)", lambda g: _num(g[0]) * 1000 / 2),
    ("MI355X", "scale_up_gbyte_s_per_dir", r"~(\d+) GB/s bidirectional per link", lambda g: _num(g[0]) * 7 / 2),
    ("Ascend-950DT", "tflops_dense.fp8", r"([\d.]+) PFLOPS FP8", lambda g: _num(g[0]) * 1000),
    ("Ascend-950DT", "tflops_dense.fp4", r"([\d.]+) PFLOPS MXFP4", lambda g: _num(g[0]) * 1000),
    ("Ascend-950DT", "hbm_gb", r"(\d+) GB HiZQ", lambda g: _num(g[0])),
    ("Ascend-950DT", "hbm_tbyte_s", r"HBM at ([\d.]+) TB/s", lambda g: _num(g[0])),
    ("Ascend-950-SuperPoD", "accelerators", r"([\d,]+) Ascend 950DT, ", lambda g: _num(g[0])),
    ("Ascend-950-SuperPoD", "racks", r"([\d,]+) cabinets", lambda g: _num(g[0])),
    ("Rubin", "tflops_dense.fp4", r"([\d.]+) EF NVFP4 inference and [\d.]+ EF FP8 training per rack of (\d+)",
     lambda g: _num(g[0]) * 1e6 / _num(g[1])),
    ("Rubin", "tflops_dense.fp8", r"and ([\d.]+) EF FP8 training per rack of (\d+)", lambda g: _num(g[0]) * 1e6 / _num(g[1])),
    ("Rubin", "hbm_gb", r"(\d+) GB HBM4", lambda g: _num(g[0])),
    ("Rubin", "scale_up_gbyte_s_per_dir", r"NVLink6 (\d+) TB/s per rack", lambda g: _num(g[0]) * 1000 / 72 / 2),
    ("VR-NVL144", "accelerators", r"\d+ GPU dies in (\d+) packages", lambda g: _num(g[0])),
    ("VR-NVL144", "cpus", r"(\d+) Vera CPUs", lambda g: _num(g[0])),
    ("scaleX-SuperNode", "accelerators", r"(\d+) accelerators on an ultra-fast bus", lambda g: _num(g[0])),
    ("scaleX-SuperNode", "max_power_kw", r"([\d.]+) MW cooling capacity", lambda g: _num(g[0]) * 1000 / 2),
    ("Hygon-DCU", "tflops_dense.bf16", r"([\d,]+)\+ cards, >(\d+) EFLOPS", lambda g: _num(g[1]) * 1e6 / _num(g[0])),
    ("Q3450-CPO", "ports_by_gbit_s.800", r"(\d+) x 800G", lambda g: _num(g[0])),
    ("Q3450-CPO", "capacity_tbit_s", r"x 800G, ([\d.]+) Tb/s", lambda g: _num(g[0])),
    ("Q3450-CPO", "rack_units", r"Q3450-LD, (\d+)U", lambda g: _num(g[0])),
    ("SN6800-CPO", "ports_by_gbit_s.800", r"(\d+) x 800G or [\d,]+ x 200G \(400", lambda g: _num(g[0])),
    ("SN6800-CPO", "ports_by_gbit_s.200", r"x 800G or ([\d,]+) x 200G \(400", lambda g: _num(g[0])),
    ("SN6800-CPO", "capacity_tbit_s", r"SN6800 ([\d.]+) Tb/s", lambda g: _num(g[0])),
    ("TH6", "capacity_tbit_s", r"([\d.]+) Tb/s single chip", lambda g: _num(g[0])),
    ("TH6", "ports_by_gbit_s.1600", r"up to (\d+) x 1\.6TbE", lambda g: _num(g[0])),
    ("TH6", "ports_by_gbit_s.200", r"(\d+) x 200G PAM4", lambda g: _num(g[0])),
    ("TH-Ultra", "latency_ns", r"512 x 100G-PAM4, (\d+) ns", lambda g: _num(g[0])),
    ("TH-Ultra", "ports_by_gbit_s.100", r"(\d+) x 100G-PAM4", lambda g: _num(g[0])),
    ("scaleFabric-400G", "ports_by_gbit_s.400", r"(\d+) ports at 400G", lambda g: _num(g[0])),
    ("ConnectX-8", "ports_by_gbit_s.400", r"'800Gb/s or XDR IB or (\d+) x 400GbE", lambda g: _num(g[0])),
    ("ConnectX-8", "ports_by_gbit_s.200", r"or (\d+) planes \(B300 only\)", lambda g: _num(g[0])),
    ("BlueField-4", "port_gbit_s", r"\): (\d+) Gb/s, 64 Arm", lambda g: _num(g[0])),
    ("AMD-Pollara-400", "port_gbit_s", r"up to (\d+) Gbps Ethernet", lambda g: _num(g[0])),
    ("Panshi-DPU", "port_gbit_s", r"~(\d+) Gbps inter-node", lambda g: _num(g[0])),
    ("ParaStor", "rack_units", r"dual-controller (\d)U24", lambda g: _num(g[0])),
    ("OSFP-1.6T-DR8", "gbit_s", r"(eight|four) (\d+) Gb/s lanes",
     lambda g: {"eight": 8, "four": 4}[g[0]] * _num(g[1])),
    ("OSFP-1.6T-DR8", "power_w", r"'below (\d+)W per module'", lambda g: _num(g[0])),
    ("OSFP-1.6T-DR8", "reach_m", r"up to (\d+) meters in DR8", lambda g: _num(g[0])),
]


@pytest.mark.parametrize("component_id, field, pattern, figure", QUOTED,
                         ids=[f"{row[0]}-{row[1]}-{i}" for i, row in enumerate(QUOTED)])
def test_a_key_figure_follows_from_the_figure_its_source_quotes(builtin, component_id, field, pattern, figure):
    spec = builtin.get(component_id)
    text = f"{spec.source} {spec.notes}"
    quoted = re.search(pattern, text)
    assert quoted, f"{component_id}: the source text no longer quotes {pattern!r}"
    # 1% covers rounding in the quote (a 130 TB/s rack total, a '~153 GB/s' link)
    assert _value(spec, field) == pytest.approx(figure(quoted.groups()), rel=0.01)


def test_a_changed_figure_is_caught_by_its_quote(builtin):
    # the check above would fail if someone edited GB300's peak without its source
    spec = builtin.get("GB300")
    text = f"{spec.source} {spec.notes}"
    quoted = re.search(r"FP16/BF16 ([\d.]+) PF", text).groups()
    assert 2600 != pytest.approx(_num(quoted[0]) * 1000, rel=0.01)


def test_every_switch_mode_carries_the_switch_capacity(builtin):
    # a port mode is a breakout of the same lanes: ports x speed is the capacity in every mode
    for spec in builtin.by_kind("switch"):
        if spec.capacity_tbit_s is None:
            continue
        for speed, count in spec.ports_by_gbit_s.items():
            assert count * float(speed) / 1000 == pytest.approx(spec.capacity_tbit_s, rel=0.005), (spec.id, speed)


def test_nic_plane_modes_split_the_same_line_rate(builtin):
    modes = builtin.get("ConnectX-8").ports_by_gbit_s
    assert modes == {"800": 1, "400": 2, "200": 4}
    for nic in [*builtin.by_kind("nic"), *builtin.by_kind("dpu")]:
        for speed, count in (nic.ports_by_gbit_s or {}).items():
            assert count * float(speed) == nic.ports * nic.port_gbit_s, nic.id


def test_a_1600g_link_finds_its_optic(builtin):
    # ConnectX-9 and TH6's 64 x 1.6T mode need a single-port 1.6T module at both ends
    from core.inventory import choose_transceiver
    assert choose_transceiver(builtin, 1600, 30).id == "OSFP-1.6T-DR8"
    assert choose_transceiver(builtin, 800, 30).id != "OSFP-1.6T-DR8"


def test_q3400_offers_only_the_800g_mode_its_documents_state(builtin):
    # hardware-2025-26.md §4: no 2 x 400G split of a Q3400 port is documented
    assert builtin.get("Q3400").ports_by_gbit_s == {"800": 144}


def test_systems_are_built_from_what_their_parts_offer(builtin):
    # a GB300 tray's NVLink ports are its GPUs' links; the rack is 18 such trays
    tray, rack, gpu = builtin.get("GB300-Compute-Tray"), builtin.get("GB300-NVL72"), builtin.get("GB300")
    assert tray.scale_up_ports == tray.accelerators * gpu.scale_up_links
    assert rack.accelerators == tray.per_rack * tray.accelerators
    assert rack.nics == tray.per_rack * tray.nics
    # the tray power fits in the rack's budget
    assert tray.per_rack * tray.max_power_kw <= rack.max_power_kw


# --------------------------------------------------------------------------- validation


def _user_entry(**overrides):
    entry = {"id": "My-NIC", "kind": "nic", "vendor": "me", "name": "My NIC", "ports": 1,
             "port_gbit_s": 800, "power_w": 20, "source": "my datasheet", "confidence": "P"}
    entry.update(overrides)
    return entry


@pytest.mark.parametrize("overrides, field, words", [
    ({"year": 1999}, "year", "from 2000 to 2035"),
    ({"year": 20250}, "year", "from 2000 to 2035"),
    ({"year": "2025"}, "year", "expected an integer"),
    ({"year": True}, "year", "expected an integer"),
    ({"status": "shipped"}, "status", "shipping, announced"),
    ({"ports_by_gbit_s": {"400": 2, "200": 4}}, "ports_by_gbit_s", "native mode"),
    ({"ports_by_gbit_s": {"800": 2}}, "ports_by_gbit_s", "native mode"),
    ({"ports_by_gbit_s": {"800": 1, "400": 0}}, "ports_by_gbit_s", "positive integer"),
    ({"ports_by_gbit_s": {"800": 1, "fast": 2}}, "ports_by_gbit_s", "not a positive number"),
    ({"ports_by_gbit_s": {}}, "ports_by_gbit_s", "at least one speed"),
])
def test_a_bad_release_field_or_nic_mode_is_a_located_one_line_error(tmp_path, overrides, field, words):
    path = tmp_path / "user.json"
    path.write_text(json.dumps({"components": [_user_entry(**overrides)]}), encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalog(extra_files=[path], include_user=False)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message and "'My-NIC'" in message and repr(field) in message and words in message


def test_a_user_nic_with_plane_modes_loads(tmp_path):
    path = tmp_path / "user.json"
    path.write_text(json.dumps({"components": [_user_entry(
        year=2026, status="announced", ports_by_gbit_s={"800": 1, "400": 2})]}), encoding="utf-8")
    spec = load_catalog(extra_files=[path], include_user=False).get("My-NIC")
    assert (spec.year, spec.status, spec.ports_by_gbit_s) == (2026, "announced", {"800": 1, "400": 2})


# --------------------------------------------------------------------------- the catalog command


def _listed(capsys, *args) -> list[dict]:
    assert main(["catalog", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_switches_since_2025_are_the_current_ones(capsys):
    listed = _listed(capsys, "--kind", "switch", "--since", "2025")
    ids = {entry["id"] for entry in listed}
    assert {"TH6", "TH-Ultra", "Q3400", "Q3450-CPO", "SN6800-CPO", "scaleFabric-400G"} <= ids
    assert not ids & {"QM9700", "SN5600", "TH5", "QM8700"}
    assert all(entry["kind"] == "switch" and entry["year"] >= 2025 for entry in listed)


def test_status_filter_lists_the_announced_roadmap(capsys):
    listed = _listed(capsys, "--status", "announced")
    assert {entry["id"] for entry in listed} == ANNOUNCED
    shipping = _listed(capsys, "--status", "shipping")
    assert not {entry["id"] for entry in shipping} & ANNOUNCED and "GB300-NVL72" in {e["id"] for e in shipping}


def test_vendor_filter_matches_any_case_and_combines_with_the_others(capsys):
    amd = {entry["id"] for entry in _listed(capsys, "--vendor", "amd")}
    assert {"MI355X", "MI355X-Platform", "AMD-Pollara-400", "MI300X"} <= amd
    assert not any("NVIDIA" in entry["vendor"] for entry in _listed(capsys, "--vendor", "amd"))
    sugon_2026 = {e["id"] for e in _listed(capsys, "--vendor", "SUGON", "--since", "2026")}
    assert sugon_2026 == {"scaleFabric-400G", "scaleFabric-400G-NIC"}


def test_the_table_shows_year_and_status(capsys):
    assert main(["catalog", "--kind", "supernode", "--status", "announced"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["ID", "KIND", "VENDOR", "YEAR", "STATUS", "NAME"]
    row = next(line for line in lines if line.startswith("VR-NVL144 "))
    assert " 2025 " in row and " announced " in row
    assert len(lines) == 3  # the header, VR-NVL144 and Ascend-950-SuperPoD


@pytest.mark.parametrize("args, words", [
    (["--status", "soon"], "--status: 'soon' is not one of shipping, announced"),
    (["--since", "1999"], "--since: 1999 is not a year from 2000 to 2035"),
    (["--since", "next"], "'next' is not a whole number"),
])
def test_a_bad_filter_is_a_one_line_error(capsys, args, words):
    # argparse refuses a non-number by exiting; the query check returns the exit code
    try:
        code = main(["catalog", *args])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]


# --------------------------------------------------------------------------- the new systems evaluate


def _generate_and_evaluate(tmp_path, capsys, *generate_args) -> dict:
    project = tmp_path / "design.json"
    assert main(["generate", *generate_args, "--workload", "llama3-70b", "-o", str(project)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(project)]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("generate_args, system, gpus, domain, scale_out_gbit_s", [
    (["supernode", "--system", "GB300-NVL72", "--count", "2", "--switch", "Q3400"], "GB300-NVL72", 144, 72, 800),
    (["fat-tree", "--gpus", "1024", "--server", "DGX-B300", "--switch", "Q3400"], "DGX-B300", 1024, 8, 800),
    (["fat-tree", "--gpus", "1024", "--server", "MI355X-Platform", "--switch", "TH6"], "MI355X-Platform", 1024, 8, 400),
    (["supernode", "--system", "Ascend-950-SuperPoD", "--count", "2", "--switch", "TH6"],
     "Ascend-950-SuperPoD", 16384, 8192, 400),
    (["supernode", "--system", "scaleX-SuperNode", "--count", "2", "--switch", "scaleFabric-400G"],
     "scaleX-SuperNode", 1280, 640, 400),
], ids=["GB300-NVL72", "DGX-B300", "MI355X-Platform", "Ascend-950-SuperPoD", "scaleX-SuperNode"])
def test_a_new_system_evaluates_to_plausible_per_gpu_figures(tmp_path, capsys, builtin, generate_args, system,
                                                             gpus, domain, scale_out_gbit_s):
    result = _generate_and_evaluate(tmp_path, capsys, *generate_args)
    spec = builtin.get(system)
    gpu = builtin.get(spec.accelerator)
    assert result["counts"]["gpus"] == gpus
    assert result["bandwidth"]["scale_up_domain_gpus"] == domain
    assert result["bandwidth"]["per_gpu_scale_out_gbit_s"] == pytest.approx(scale_out_gbit_s)
    assert result["bandwidth"]["per_gpu_scale_up_gbyte_s"] == pytest.approx(gpu.scale_up_gbyte_s_per_dir)
    performance = result["performance"]
    # Llama 3 70B fits every one of these accelerators' HBM, and uses a share of it
    assert performance["fits_memory"] and 0 < performance["memory_per_gpu_gb"] < gpu.hbm_gb
    # an MFU outside 0.2-0.75 would mean a wrong peak or a broken fabric, not a fast part
    assert 0.2 < performance["mfu"] < 0.75
    assert performance["tflops_per_gpu"] == pytest.approx(performance["mfu"] * gpu.tflops_dense["bf16"], rel=0.01)
    # the hardware is priced and draws at least its systems' typical power
    systems = gpus // spec.accelerators
    assert result["cost"]["hardware_capex_usd"] >= systems * spec.price.usd
    assert result["power"]["it_kw"] >= systems * spec.typical_power_kw
    assert not [w for w in result["warnings"] if w["severity"] == "error"]


@pytest.mark.parametrize("ultra, sibling, low, high", [
    # NVIDIA's same-release, same-layout dense pairs run GB300 1.05-1.27x GB200 per GPU at the
    # same BF16/FP8 peaks (Megatron-Bridge performance-summary archive @067f987df, P;
    # tests/validation/ultra_pairs.py), which calibrates the GB300 factor
    (["supernode", "--system", "GB300-NVL72", "--count", "2", "--switch", "Q3400"],
     ["supernode", "--system", "GB200-NVL72", "--count", "2", "--switch", "QM9700"], 1.05, 1.3),
    # no dense B300 / B200 pair is published: B300 takes B200's calibration, the same MFU
    (["fat-tree", "--gpus", "1024", "--server", "DGX-B300", "--switch", "Q3400"],
     ["fat-tree", "--gpus", "1024", "--server", "DGX-B200", "--switch", "QM9700"], 0.9, 1.1),
], ids=["GB300-vs-GB200", "B300-vs-B200"])
def test_blackwell_ultra_trains_as_its_published_pairs_say(tmp_path, capsys, ultra, sibling, low, high):
    # same SM generation and BF16 peak; before the Ultra parts were calibrated against their
    # siblings they came out ~50% higher on the A100-derived default
    mfu_ultra = _generate_and_evaluate(tmp_path, capsys, *ultra)["performance"]["mfu"]
    mfu_sibling = _generate_and_evaluate(tmp_path, capsys, *sibling)["performance"]["mfu"]
    assert low < mfu_ultra / mfu_sibling < high
