"""The built-in component catalog (resources/catalog/*.json) and the catalog loader's errors.

Spec numbers are checked against /work/shared/reference/ (cited per assertion).
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from core.catalog import (
    _COMMON,
    BUILTIN_CATALOG_DIR,
    COMPUTE_KINDS,
    FIELDS,
    KINDS,
    Catalog,
    load_catalog,
    load_catalog_file,
    parse_entry,
)
from core.errors import CatalogError, DesignError
from core.catalog_spec import SPEC_CLASSES, ScaleUpSwitchSlot

REQUIRED_IDS = {
    "accelerator": [
        "A100-SXM4-80GB", "H100-SXM5-80GB", "H200-SXM", "B200", "GB200", "MI300X", "Ascend-910C",
    ],
    "server": ["DGX-A100", "DGX-H100", "DGX-H200", "DGX-B200"],
    "supernode": ["GB200-NVL72", "CloudMatrix384"],
    "switch": ["QM9700", "Q3400", "SN5600", "TH5"],
    "nic": ["ConnectX-7"],
    "dpu": ["BlueField-3"],
    "storage": ["AI400X2"],
}

CONFIDENCE_RE = re.compile(r"^[PSE](/[PSE])*$")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(include_user=False)


# --------------------------------------------------------------------------- built-in data


def test_builtin_files_exist_and_are_pretty_printed():
    names = {p.name for p in BUILTIN_CATALOG_DIR.glob("*.json")}
    assert {
        "accelerators.json", "network.json", "storage.json", "switches.json", "systems.json",
    } <= names
    for path in BUILTIN_CATALOG_DIR.glob("*.json"):
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        assert list(data) == ["components"], path
        assert text == json.dumps(data, indent=2, ensure_ascii=False) + "\n", path


@pytest.mark.parametrize(
    "kind,component_id",
    [(kind, cid) for kind, ids in REQUIRED_IDS.items() for cid in ids],
)
def test_required_ids_exist_with_their_kind(catalog, kind, component_id):
    # DESIGN.md "Catalog ids that must exist".
    assert component_id in catalog
    assert catalog.require(component_id, kind).kind == kind


def test_every_kind_is_represented(catalog):
    assert {spec.kind for spec in catalog} == set(KINDS)


def test_every_kind_loads_as_a_typed_spec_with_exactly_its_schema_fields(catalog):
    # analyses read attributes, so a field the schema accepts must be an attribute of its
    # kind's class (and nothing else may be), and no entry can be read by a string key
    for kind in KINDS:
        declared = {f.name for f in dataclasses.fields(SPEC_CLASSES[kind])} - {"origin"}
        assert declared == set(_COMMON) | set(FIELDS[kind]), kind
    for spec in catalog:
        assert type(spec) is SPEC_CLASSES[spec.kind], spec.id
        assert not hasattr(spec, "get") and not hasattr(spec, "__getitem__"), spec.id


def test_every_entry_round_trips_through_its_json(catalog):
    # `catalog --format json` writes what a user copies into their own catalog
    for spec in catalog:
        assert parse_entry(spec.to_json(), spec.origin, 0) == spec, spec.id


def test_every_entry_has_source_and_confidence(catalog):
    for spec in catalog:
        assert spec.source.strip(), spec.id
        assert CONFIDENCE_RE.match(spec.confidence), (spec.id, spec.confidence)
        assert spec.name.strip() and spec.vendor.strip(), spec.id
        if spec.failure_rate_per_1000_days is not None:
            assert spec.failure_rate_source.strip(), spec.id


def test_estimates_are_labelled(catalog):
    # Entries whose notes call a field an estimate must carry an E in their tag.
    for spec in catalog:
        notes = spec.notes
        if re.search(r"\bis E\b|\bare E\b|ESTIMATE", notes):
            assert "E" in spec.confidence.split("/"), spec.id


def test_h100_dense_not_sparse(catalog):
    # hardware.md §1, H100 SXM5 row: 989.4 BF16 / 1,978.9 FP8 dense (1,979/3,958 are sparse).
    h100 = catalog.get("H100-SXM5-80GB")
    assert h100.peak_tflops("bf16") == pytest.approx(989.4)
    assert h100.peak_tflops("fp8") == pytest.approx(1978.9)
    assert h100.hbm_gb == 80
    assert h100.tdp_w == 700
    # hardware.md §1: NVLink4 450 GB/s/dir; topologies.md §7: ~370 NCCL-effective (nccl-tests #212).
    assert h100.scale_up_gbyte_s_per_dir == 450
    assert h100.scale_up_effective_gbyte_s == 370


@pytest.mark.parametrize(
    "component_id,bf16,scale_up",
    [
        ("A100-SXM4-80GB", 312, 300),  # hardware.md §1 A100 row
        ("H200-SXM", 989.4, 450),  # hardware.md §1 H200 row
        ("B200", 2250, 900),  # hardware.md §1 B200 row
        ("GB200", 2500, 900),  # hardware.md §1 GB200 per-GPU row
        ("MI300X", 1307.4, 448),  # hardware.md §1 MI300X row (7 x 64 GB/s)
        ("MI325X", 1307.4, 448),  # hardware.md §1 MI325X row
        ("Ascend-910C", 752, 392),  # hardware.md §1 Ascend 910C row
        ("Gaudi3", 1835, 525),  # hardware.md §1 Gaudi 3 row
    ],
)
def test_accelerator_dense_bf16_and_scale_up(catalog, component_id, bf16, scale_up):
    spec = catalog.get(component_id)
    assert spec.peak_tflops("bf16") == pytest.approx(bf16)
    assert spec.scale_up_gbyte_s_per_dir == scale_up
    # reliability-power.md §2: GPU default 0.25 per 1000 GPU-days.
    assert spec.failure_rate_per_1000_days == 0.25


def test_no_sparse_figures_slipped_in(catalog):
    # Dense FP8 is 2x dense BF16 on every part here except Gaudi 3 (equal); a sparse value would be 4x.
    for spec in catalog.by_kind("accelerator"):
        table = spec.tflops_dense
        if "fp8" in table:
            assert table["fp8"] <= 2.001 * table["bf16"], spec.id  # datasheet rounding


def test_dgx_h100_power_and_layout(catalog):
    # hardware.md §2 DGX H100 row: 10.2 kW (6 x 3.3 kW, 4+2), 8U, 8 x CX-7 400G, 4 NVSwitch.
    dgx = catalog.get("DGX-H100")
    assert dgx.max_power_kw == pytest.approx(10.2)
    assert dgx.accelerator == "H100-SXM5-80GB"
    assert dgx.accelerators == 8
    assert dgx.nic == "ConnectX-7" and dgx.nics == 8
    assert dgx.rack_units == 8
    assert dgx.scale_up_switches == (ScaleUpSwitchSlot("NVSwitch-Gen3", 4),)
    # reliability-power.md §8.1: HGX H100 averages ~76% of 10.2 kW in training.
    assert dgx.typical_power_kw == pytest.approx(0.76 * 10.2, abs=0.01)
    # topologies.md §2: >40 kW per rack, 4 DGX H100.
    assert dgx.per_rack == 4
    # reliability-power.md §2: host non-GPU 0.45 per 1000 node-days.
    assert dgx.failure_rate_per_1000_days == 0.45


def test_other_dgx_power(catalog):
    # hardware.md §2: DGX A100 6.5 kW, DGX H200 10.2 kW, DGX B200 14.3 kW with 2 x BlueField-3.
    assert catalog.get("DGX-A100").max_power_kw == pytest.approx(6.5)
    assert catalog.get("DGX-A100").nic == "ConnectX-6"
    assert catalog.get("DGX-H200").max_power_kw == pytest.approx(10.2)
    b200 = catalog.get("DGX-B200")
    assert b200.max_power_kw == pytest.approx(14.3)
    assert b200.rack_units == 10
    assert b200.dpu == "BlueField-3" and b200.dpus == 2


def test_qm9700_radix(catalog):
    # hardware.md §4 QM9700 row: 64 @ 400G (32 twin-port OSFP); 128 @ 200G; SHARPv3.
    qm = catalog.get("QM9700")
    assert qm.port_count_at(400) == 64
    assert qm.port_count_at(200) == 128
    assert qm.port_count_at(800) == 0
    assert qm.native_port_gbit_s == 400
    assert qm.in_network_reduction is True
    assert qm.latency_ns == 130  # hardware.md §4 per-hop default (E)


def test_51t_ethernet_and_xdr_radix(catalog):
    # hardware.md §4: SN5600 / Tomahawk 5 64 @ 800G, 128 @ 400G, 256 @ 200G; Q3400 144 @ 800G.
    for sid in ("SN5600", "TH5"):
        sw = catalog.get(sid)
        assert (sw.port_count_at(800), sw.port_count_at(400), sw.port_count_at(200)) == (64, 128, 256)
        assert sw.protocol == "ethernet"
    assert catalog.get("Q3400").port_count_at(800) == 144


def test_gb200_nvl72_is_one_72_gpu_domain(catalog):
    # hardware.md §3 / topologies.md §4: 72 GPUs, 36 Grace, one NVLink5 tier, 18 switch chips.
    nvl = catalog.require("GB200-NVL72", "supernode")
    assert nvl.accelerator == "GB200"
    assert nvl.accelerators == 72
    assert nvl.scale_up_domain == 72
    assert nvl.scale_up_tiers == 1
    assert nvl.scale_up_switches == (ScaleUpSwitchSlot("NVLink5-Switch-Chip", 18),)
    assert nvl.cpus == 36
    assert nvl.cooling == "liquid"
    assert 120 <= nvl.max_power_kw <= 145
    # NVL72: 72 x 18 = 1,296 GPU ports = 18 chips x 72 ports (topologies.md §2 test vectors).
    chip = catalog.get("NVLink5-Switch-Chip")
    assert 18 * chip.port_count_at(400) == 72 * catalog.get("GB200").scale_up_links


def test_cloudmatrix384(catalog):
    # hardware.md §3 / topologies.md §4: 384 NPUs, 192 CPUs, 16 racks, L1 336 + L2 112, 2 tiers.
    cm = catalog.require("CloudMatrix384", "supernode")
    assert cm.accelerator == "Ascend-910C"
    assert cm.accelerators == 384
    assert cm.scale_up_domain == 384
    assert cm.scale_up_tiers == 2
    counts = {item.id: item.count for item in cm.scale_up_switches}
    assert counts == {"UB-Switch-L1": 336, "UB-Switch-L2": 112}
    assert counts["UB-Switch-L1"] == 48 * 7 and counts["UB-Switch-L2"] == 7 * 16
    assert cm.racks == 16
    assert cm.cpus == 192
    assert cm.max_power_kw == pytest.approx(559)  # SemiAnalysis estimate (S)
    # Every L1 uplink lands on an L2 port: 336 x 16 = 112 x 48.
    l1, l2 = catalog.get("UB-Switch-L1"), catalog.get("UB-Switch-L2")
    assert 336 * (l1.port_count_at(224) // 2) == 112 * l2.port_count_at(224)


def test_nics_and_dpu(catalog):
    # hardware.md §5: CX-7 400G, NCCL-effective 46-48 GB/s (nccl-tests #290); CX-6 23.5 (SimAI).
    cx7 = catalog.get("ConnectX-7")
    assert cx7.port_gbit_s == 400 and cx7.ports == 1
    assert 46 <= cx7.effective_gbyte_s <= 48
    assert catalog.get("ConnectX-6").effective_gbyte_s == 23.5
    # hardware.md §5: BlueField-3 B3220 2 x 200G.
    bf3 = catalog.require("BlueField-3", "dpu")
    assert (bf3.ports, bf3.port_gbit_s) == (2, 200)
    assert 75 <= bf3.power_w <= 150


def test_storage(catalog):
    # hardware.md §7: AI400X2 ~90 GB/s read, ~65 write, 2U.
    ai = catalog.get("AI400X2")
    assert (ai.read_gbyte_s, ai.write_gbyte_s, ai.rack_units) == (90, 65, 2)


def test_compute_references_resolve(catalog):
    for spec in catalog:
        if spec.kind not in COMPUTE_KINDS:
            continue
        assert catalog.get(spec.accelerator).kind == "accelerator"
        for item in spec.scale_up_switches:
            assert catalog.get(item.id).role == "scale-up", spec.id
        if spec.nics:
            assert catalog.get(spec.nic).kind in ("nic", "dpu")


# --------------------------------------------------------------------------- bad input


def _write(tmp_path: Path, entries, name: str = "user.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"components": entries}, indent=2), encoding="utf-8")
    return path


def _nic(**overrides):
    entry = {
        "id": "My-NIC",
        "kind": "nic",
        "vendor": "Acme",
        "name": "Acme 400G NIC",
        "ports": 1,
        "port_gbit_s": 400,
        "power_w": 20,
        "source": "test fixture",
        "confidence": "E",
    }
    entry.update(overrides)
    return {k: v for k, v in entry.items() if v is not None}


def _load_error(path: Path) -> str:
    with pytest.raises(CatalogError) as info:
        load_catalog(extra_files=[path], include_user=False)
    message = str(info.value)
    assert "\n" not in message
    assert isinstance(info.value, DesignError)
    return message


def _assert_names(message: str, path: Path, component_id: str, field: str) -> None:
    assert str(path) in message
    assert repr(component_id) in message
    assert repr(field) in message


def test_unknown_kind(tmp_path):
    path = _write(tmp_path, [_nic(kind="gizmo")])
    message = _load_error(path)
    _assert_names(message, path, "My-NIC", "kind")
    assert "'gizmo'" in message


def test_missing_required_field(tmp_path):
    path = _write(tmp_path, [_nic(power_w=None)])
    message = _load_error(path)
    _assert_names(message, path, "My-NIC", "power_w")
    assert "missing" in message


def test_wrong_type(tmp_path):
    path = _write(tmp_path, [_nic(port_gbit_s="400G")])
    message = _load_error(path)
    _assert_names(message, path, "My-NIC", "port_gbit_s")
    assert "expected a number" in message


def test_bool_is_not_a_number(tmp_path):
    path = _write(tmp_path, [_nic(power_w=True)])
    _assert_names(_load_error(path), path, "My-NIC", "power_w")


def test_negative_number(tmp_path):
    path = _write(tmp_path, [_nic(power_w=-5)])
    message = _load_error(path)
    _assert_names(message, path, "My-NIC", "power_w")
    assert "negative" in message


def test_unknown_field(tmp_path):
    path = _write(tmp_path, [_nic(speed_gbps=400)])
    message = _load_error(path)
    _assert_names(message, path, "My-NIC", "speed_gbps")
    assert "unknown field" in message


def test_the_retired_price_field_says_what_to_write_instead(tmp_path):
    # price_usd was accepted and never read: an entry that set it was silently unpriced
    path = _write(tmp_path, [_nic(price_usd=1500)])
    message = _load_error(path)
    _assert_names(message, path, "My-NIC", "price_usd")
    assert 'is retired: write the price as "price": {"usd": N' in message


def test_duplicate_of_builtin_id(tmp_path):
    # A user file may add ids but not silently redefine a cited built-in spec.
    path = _write(tmp_path, [_nic(id="ConnectX-7")])
    message = _load_error(path)
    assert str(path) in message
    assert "'ConnectX-7'" in message
    assert "duplicate" in message
    assert "network.json" in message  # where the built-in lives


def test_dangling_accelerator_reference(tmp_path):
    server = {
        "id": "My-Server",
        "kind": "server",
        "vendor": "Acme",
        "name": "Acme 8-GPU box",
        "accelerator": "No-Such-GPU",
        "accelerators": 8,
        "max_power_kw": 10,
        "source": "test fixture",
        "confidence": "E",
    }
    path = _write(tmp_path, [server])
    message = _load_error(path)
    _assert_names(message, path, "My-Server", "accelerator")
    assert "'No-Such-GPU'" in message


def test_dangling_scale_up_switch_reference(tmp_path):
    server = {
        "id": "My-Server",
        "kind": "server",
        "vendor": "Acme",
        "name": "Acme 8-GPU box",
        "accelerator": "H100-SXM5-80GB",
        "accelerators": 8,
        "scale_up_switches": [{"id": "No-Such-Switch", "count": 4}],
        "max_power_kw": 10,
        "source": "test fixture",
        "confidence": "E",
    }
    path = _write(tmp_path, [server])
    message = _load_error(path)
    _assert_names(message, path, "My-Server", "scale_up_switches[0]")
    assert "'No-Such-Switch'" in message


def test_invalid_json_reports_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "components": [\n    {"id": "x",}\n  ]\n}\n', encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalog_file(path)
    message = str(info.value)
    assert str(path) in message
    assert "invalid JSON" in message
    assert "line 3" in message
    with pytest.raises(CatalogError):
        load_catalog(extra_files=[path], include_user=False)


def test_missing_file(tmp_path):
    path = tmp_path / "does-not-exist.json"
    message = _load_error(path)
    assert str(path) in message
    assert "cannot read" in message


def test_entries_not_a_list(tmp_path):
    path = tmp_path / "odd.json"
    path.write_text('{"parts": []}', encoding="utf-8")
    message = _load_error(path)
    assert str(path) in message and "'components'" in message


# --------------------------------------------------------------------------- user entries


def test_user_entry_is_usable(tmp_path):
    path = _write(tmp_path, [_nic(id="Acme-NIC-400", effective_gbyte_s=45)])
    cat = load_catalog(extra_files=[path], include_user=False)
    spec = cat.get("Acme-NIC-400")
    assert spec.kind == "nic"
    assert spec.port_gbit_s == 400
    assert spec.effective_gbyte_s == 45
    assert spec.origin == str(path)
    # Built-ins are still there.
    assert "ConnectX-7" in cat


def test_user_server_can_use_builtin_parts(tmp_path):
    server = {
        "id": "Acme-H100-Box",
        "kind": "server",
        "vendor": "Acme",
        "name": "Acme 8x H100",
        "accelerator": "H100-SXM5-80GB",
        "accelerators": 8,
        "nic": "ConnectX-7",
        "nics": 8,
        "max_power_kw": 10.2,
        "source": "test fixture",
        "confidence": "E",
    }
    path = _write(tmp_path, [server])
    cat = load_catalog(extra_files=[path], include_user=False)
    spec = cat.require("Acme-H100-Box", "server")
    assert spec.scale_up_domain == 8  # defaults to the accelerator count
    assert spec.per_rack == 1 and spec.cooling == "air"


def test_user_catalog_from_environment(tmp_path, monkeypatch):
    path = _write(tmp_path, [_nic(id="Env-NIC")], name="env-catalog.json")
    monkeypatch.setenv("CLUSTER_DESIGNER_USER_CATALOG", str(path))
    assert "Env-NIC" in load_catalog()


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"components": [{"id": "caf\xe9"}]}')
    message = _load_error(path)
    assert str(path) in message
    assert "UTF-8" in message


def test_nan_is_rejected(tmp_path):
    path = tmp_path / "user.json"
    path.write_text(json.dumps({"components": [_nic()]}).replace('"power_w": 20', '"power_w": NaN'))
    _assert_names(_load_error(path), path, "My-NIC", "power_w")


def test_confidence_must_be_a_tag(tmp_path):
    path = _write(tmp_path, [_nic(confidence="pretty sure")])
    _assert_names(_load_error(path), path, "My-NIC", "confidence")


def test_boolean_port_count_is_rejected(tmp_path):
    switch = {"id": "My-Switch", "kind": "switch", "vendor": "Acme", "name": "Acme switch",
              "role": "scale-out", "protocol": "ethernet", "ports_by_gbit_s": {"400": True},
              "latency_ns": 500, "max_power_w": 900, "source": "test fixture", "confidence": "E"}
    path = _write(tmp_path, [switch])
    _assert_names(_load_error(path), path, "My-Switch", "ports_by_gbit_s")


@pytest.mark.parametrize("change, field, problem", [
    # what used to crash or pass silently: a list as kind, "nan" as a port speed, absurd counts
    ({"kind": ["nic"]}, "kind", "is not one of"),
    ({"ports": 10**30}, "ports", "above the maximum 1,000,000"),
    ({"power_w": 1e300}, "power_w", "above the maximum 1,000,000,000,000"),
    ({"power_w": float("nan")}, "power_w", "expected a number, got nan"),
    ({"protocols": [["deep"]]}, "protocols", "expected a list of protocol names"),
])
def test_out_of_range_and_mistyped_values_name_the_field(tmp_path, change, field, problem):
    message = _load_error(_write(tmp_path, [_nic(**change)]))
    assert f"field {field!r}" in message and problem in message


def test_a_switch_port_speed_must_be_a_finite_number(tmp_path):
    switch = {"id": "My-Switch", "kind": "switch", "vendor": "Acme", "name": "Acme switch",
              "role": "scale-out", "protocol": "ethernet", "ports_by_gbit_s": {"nan": 64},
              "latency_ns": 500, "max_power_w": 1000, "source": "test fixture", "confidence": "E"}
    message = _load_error(_write(tmp_path, [switch]))
    assert "field 'ports_by_gbit_s': speed 'nan' is not a positive number" in message


def test_a_file_without_a_component_list_names_where_it_was_expected(tmp_path):
    path = tmp_path / "odd.json"
    path.write_text('{"components": 5}', encoding="utf-8")
    assert f"{path}: $.components: expected a list of entries" in _load_error(path)


@pytest.mark.parametrize("field", ["hbm_gb", "hbm_tbyte_s", "scale_up_gbyte_s_per_dir"])
def test_an_accelerator_needs_positive_memory_and_bandwidth(tmp_path, field):
    # the performance model divides by them: 0 used to be a ZeroDivisionError at evaluation
    accelerator = {"id": "My-GPU", "kind": "accelerator", "vendor": "Acme", "name": "Acme GPU",
                   "tflops_dense": {"bf16": 1000}, "hbm_gb": 80, "hbm_tbyte_s": 3.35, "tdp_w": 700,
                   "scale_up_gbyte_s_per_dir": 450, "source": "test fixture", "confidence": "E"}
    accelerator[field] = 0
    message = _load_error(_write(tmp_path, [accelerator]))
    assert f"field {field!r}: must be positive, got 0" in message


@pytest.mark.parametrize("component_id, capacity_gb", [
    ("H100-SXM5-80GB", 85.52),  # nvidia-smi memory.total 81,559 MiB
    ("A100-SXM4-80GB", 85.90),  # 81,920 MiB
    ("H200-SXM", 150.75),       # 143,771 MiB
    ("B200", 192.27),           # 183,359 MiB
    ("GB200", 198.67),          # 189,471 MiB
    ("MI300X", 205.82),         # rocm-smi VRAM Total Memory 205,822,885,888 B
    ("B300", 288.40),           # 275,040 MiB
    ("GB300", 298.01),          # 284,208 MiB
    ("MI355X", 309.24),         # no driver total catalogued: 288 GiB
])
def test_a_gpu_holds_its_memory_in_bytes_not_the_spec_sheets_number(catalog, component_id,
                                                                    capacity_gb):
    """Vendors' "80 GB" are GiB (HBM comes in binary stacks); the analyses count GB of 10^9
    bytes, so the memory a job can fill is the driver's reported total, not 80e9 bytes."""
    assert catalog.get(component_id).hbm_capacity_gb == pytest.approx(capacity_gb, abs=0.005)


@pytest.mark.parametrize("reported", [0, 81_921])
def test_a_reported_memory_total_is_positive_and_within_the_stacks(tmp_path, reported):
    accelerator = {"id": "My-GPU", "kind": "accelerator", "vendor": "Acme", "name": "Acme GPU",
                   "tflops_dense": {"bf16": 1000}, "hbm_gb": 80, "hbm_reported_mib": reported,
                   "hbm_tbyte_s": 3.35, "tdp_w": 700, "scale_up_gbyte_s_per_dir": 450,
                   "source": "test fixture", "confidence": "E"}
    message = _load_error(_write(tmp_path, [accelerator]))
    assert (f"field 'hbm_reported_mib': must be positive and at most hbm_gb x 1024 MiB (81920), "
            f"got {reported}") in message
