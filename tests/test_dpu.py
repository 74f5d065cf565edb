"""DPUs that do work (issue 14, article 003's five engines): catalog engines, the DPU stage of
the storage path, the crypto check, host cores freed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.storage import StorageAssumptions
from core.assumptions import Assumptions
from core.catalog import Catalog, load_catalog, parse_entry
from core.diagnostic_codes import CODES
from core.dpu_engines import ENGINES
from core.errors import CatalogError
from core.evaluate import evaluate, evaluation_to_json
from core.generators.fat_tree import FatTreeOptions, generate_fat_tree
from core.project import design_from_dict, design_to_dict
from core.workload import workload_from_dict

DPU_IDS = ("BlueField-3", "BlueField-4", "Panshi-DPU")


def _dpu(**overrides):
    entry = {
        "id": "My-DPU", "kind": "dpu", "vendor": "Acme", "name": "Acme 400G DPU",
        "ports": 1, "port_gbit_s": 400, "power_w": 75,
        "engines": {"storage": {"gbyte_s": 20, "offload_cores_freed": 8, "evidence": "E"},
                    "network": {"gbit_s": 400}},
        "source": "test fixture", "confidence": "E",
    }
    entry.update(overrides)
    return entry


def _write(tmp_path: Path, entries) -> Path:
    path = tmp_path / "user.json"
    path.write_text(json.dumps({"components": entries}), encoding="utf-8")
    return path


def _load_error(tmp_path: Path, entry) -> str:
    path = _write(tmp_path, [entry])
    with pytest.raises(CatalogError) as info:
        load_catalog(extra_files=[path], include_user=False)
    message = str(info.value)
    assert "\n" not in message and str(path) in message and "'My-DPU'" in message
    return message


@pytest.mark.parametrize("dpu_id", DPU_IDS)
def test_builtin_dpus_list_all_five_engines_with_evidence(dpu_id):
    spec = load_catalog(include_user=False).get(dpu_id)
    engines = spec.engines
    assert tuple(engines) == ENGINES
    for name, engine in engines.items():
        assert engine.evidence, (dpu_id, name)
        assert engine.note, (dpu_id, name)
    # the network engine's line rate is the card's
    assert engines["network"].gbit_s == spec.ports * spec.port_gbit_s
    assert "§8 (DPU engines)" in spec.source


def test_builtin_dpu_figures_follow_their_sources():
    catalog = load_catalog(include_user=False)
    bf3, bf4, panshi = (catalog.get(i).engines for i in DPU_IDS)
    assert bf3["security"].ipsec_gbit_s == 400          # datasheet: line-rate IPsec
    assert bf3["control"].arm_cores == 16
    assert bf4["control"].arm_cores == 64
    assert panshi["network"].gbit_s == 400              # article 003: ~400 Gbps
    # figures nobody publishes are tagged as estimates
    assert "E" in panshi["storage"].evidence and "E" in bf4["security"].evidence


def test_a_user_dpu_with_engines_loads(tmp_path):
    catalog = load_catalog(extra_files=[_write(tmp_path, [_dpu()])], include_user=False)
    assert catalog.get("My-DPU").engines["storage"].gbyte_s == 20


@pytest.mark.parametrize("engines, where", [
    ({"crypto": {"gbit_s": 1}}, "engines.crypto"),
    ({"storage": {"gbit_s": 1}}, "engines.storage.gbit_s"),
    ({"storage": {"gbyte_s": 0}}, "engines.storage.gbyte_s"),
    ({"storage": {"gbyte_s": -5}}, "engines.storage.gbyte_s"),
    ({"storage": {"gbyte_s": "fast"}}, "engines.storage.gbyte_s"),
    ({"security": {"ipsec_gbit_s": True}}, "engines.security.ipsec_gbit_s"),
    ({"control": {"arm_cores": 2.5}}, "engines.control.arm_cores"),
    ({"network": {"gbit_s": 1e13}}, "engines.network.gbit_s"),
    ({"network": {"gbit_s": 400, "evidence": "sure"}}, "engines.network.evidence"),
    ({"network": {"gbit_s": 400, "offload_cores_freed": -1}}, "engines.network.offload_cores_freed"),
    ({"network": 400}, "engines.network"),
    ([1, 2], "engines"),
])
def test_a_bad_engine_is_named(tmp_path, engines, where):
    message = _load_error(tmp_path, _dpu(engines=engines))
    assert repr(where) in message


def test_cores_freed_given_twice_is_refused(tmp_path):
    message = _load_error(tmp_path, _dpu(offload_cores_freed=40))
    assert "'engines.storage.offload_cores_freed'" in message and "not both" in message


def test_engines_only_on_a_dpu(tmp_path):
    nic = _dpu(kind="nic")
    path = _write(tmp_path, [nic])
    with pytest.raises(CatalogError, match="'engines': unknown field for a nic"):
        load_catalog(extra_files=[path], include_user=False)


# --------------------------------------------------------------------------- on the storage path


def _job(gpus: int):
    """Llama 3 70B on ``gpus`` GPUs, TP 8 PP 4."""
    raw = json.loads(Path("resources/workloads/llama3-70b.json").read_text())
    dp = gpus // 32
    raw["parallelism"].update(tp=8, pp=4, dp=dp, global_batch=dp * 4)
    return workload_from_dict(raw)


def _catalog_with(tmp_path, catalog, dpu: dict | None = None):
    """The built-in catalog plus a DGX-B200 whose two DPUs are ``dpu`` (id "My-DPU")."""
    server = {**catalog.get("DGX-B200").to_json(), "id": "B200-My-DPU", "dpu": "My-DPU"}
    server.pop("price", None)
    entries = [dpu or _dpu(ports=2, port_gbit_s=200), server]
    return load_catalog(extra_files=[_write(tmp_path, entries)], include_user=False)


def _evaluate(catalog, server: str, storage_nodes: int, encrypt: bool = False,
              dpus_override: float | None = None, gpus: int = 256):
    design = generate_fat_tree(FatTreeOptions(gpus, server, "QM9700", storage="AI400X2",
                                              storage_nodes=storage_nodes), catalog)
    raw = design_to_dict(design)
    if dpus_override is not None:
        for su in raw["design"]["children"]:
            for child in su.get("children", []):
                if child.get("catalog_id") == server:
                    child["overrides"] = {"dpus": dpus_override}
    raw["assumptions"] = {"storage": {"dpu_encrypt_storage": encrypt}}
    design = design_from_dict(raw, catalog)
    return evaluate(design, catalog, _job(gpus))


def _codes(ev) -> dict:
    return {w.code: w for w in ev.warnings}


def test_storage_through_bluefield3_names_the_dpu_and_its_engines_cap_it(catalog):
    ev = _evaluate(catalog, "DGX-B200", storage_nodes=16)
    nodes = 256 // 8
    per_dpu = catalog.get("BlueField-3").engines["storage"].gbyte_s
    for io_class in ("data_loading", "checkpoint_write", "checkpoint_restore"):
        result = ev.storage.classes[io_class]
        assert "BlueField-3 DPU ports" in result.path
        assert result.stages_gbyte_s["BlueField-3 storage engine"] == pytest.approx(nodes * 2 * per_dpu)
        assert result.job_gbyte_s <= result.stages_gbyte_s["BlueField-3 storage engine"]
    # 16 AI400X2 bind here, not the DPUs: no DPU warning
    assert ev.storage.classes["checkpoint_write"].bottleneck == "AI400X2 throughput"
    assert "DPU_BOTTLENECK" not in _codes(ev)


def test_one_bluefield3_per_node_caps_storage_at_its_storage_engine(catalog):
    # A node overridden to one DPU (its links as drawn): its storage engine, not the links or
    # the 200 storage nodes, sets the job's storage bandwidth, and the warning names the nodes.
    ev = _evaluate(catalog, "DGX-B200", storage_nodes=200, dpus_override=1)
    per_dpu = catalog.get("BlueField-3").engines["storage"].gbyte_s
    write = ev.storage.classes["checkpoint_write"]
    assert write.bottleneck == "BlueField-3 storage engine"
    assert write.job_gbyte_s == pytest.approx(32 * 1 * per_dpu)
    assert write.job_gbyte_s < write.stages_gbyte_s["job's own links"]
    warning = _codes(ev)["DPU_BOTTLENECK"]
    assert warning.severity == "warning" and "BlueField-3" in warning.message
    assert warning.components and all("nodes" in c for c in warning.components)
    assert ev.counts.dpus == 32                              # the override is counted too
    out = evaluation_to_json(ev)["dpus"]["by_model"]["BlueField-3"]
    assert out["binding_engine"] == "storage"
    assert "checkpoint_write" in out["binding_io_classes"]


def test_a_dpu_slower_than_its_storage_share_is_the_bottleneck(tmp_path, catalog):
    slow = _catalog_with(tmp_path, catalog)                  # My-DPU: storage engine 20 GB/s
    fast = _evaluate(catalog, "DGX-B200", storage_nodes=64)
    ev = _evaluate(slow, "B200-My-DPU", storage_nodes=64)
    write = ev.storage.classes["checkpoint_write"]
    assert write.bottleneck == "My-DPU storage engine"
    assert write.job_gbyte_s == pytest.approx(32 * 2 * 20)
    # the slower DPU makes the checkpoint slower than the same design with BlueField-3
    assert ev.reliability.checkpoint_write_s > fast.reliability.checkpoint_write_s
    assert "DPU_BOTTLENECK" in _codes(ev) and "DPU_BOTTLENECK" not in _codes(fast)
    assert CODES["DPU_BOTTLENECK"].severity == "warning"


def test_encrypted_storage_is_checked_against_the_security_engine(tmp_path, catalog):
    # IPsec at 100 Gb/s per DPU under 2 x 200G ports: encryption, not the links, binds
    dpu = _dpu(ports=2, port_gbit_s=200, engines={
        "storage": {"gbyte_s": 50}, "network": {"gbit_s": 400},
        "security": {"ipsec_gbit_s": 100, "offload_cores_freed": 10}})
    crypto = _catalog_with(tmp_path, catalog, dpu)
    plain = _evaluate(crypto, "B200-My-DPU", storage_nodes=200)
    sealed = _evaluate(crypto, "B200-My-DPU", storage_nodes=200, encrypt=True)
    assert "My-DPU security engine (IPsec)" not in plain.storage.classes["data_loading"].stages_gbyte_s
    assert "DPU_CRYPTO_LIMIT" not in _codes(plain)
    data = sealed.storage.classes["data_loading"]
    assert data.bottleneck == "My-DPU security engine (IPsec)"
    assert data.job_gbyte_s == pytest.approx(32 * 2 * 100 / 8)
    assert data.job_gbyte_s < plain.storage.classes["data_loading"].job_gbyte_s
    assert "DPU_CRYPTO_LIMIT" in _codes(sealed) and "DPU_BOTTLENECK" not in _codes(sealed)
    assert sealed.dpus.models["My-DPU"].binding_engine == "security"


def test_bluefield3_encrypts_at_line_rate_without_a_crypto_warning(catalog):
    ev = _evaluate(catalog, "DGX-B200", storage_nodes=200, encrypt=True)
    stages = ev.storage.classes["checkpoint_write"].stages_gbyte_s
    assert stages["BlueField-3 security engine (IPsec)"] == pytest.approx(
        stages["job's own links"])
    assert "DPU_CRYPTO_LIMIT" not in _codes(ev)
    assert "security" in ev.dpus.models["BlueField-3"].engines_used


def test_encryption_on_a_dpu_without_a_security_engine_is_said(tmp_path, catalog):
    ev = _evaluate(_catalog_with(tmp_path, catalog), "B200-My-DPU", storage_nodes=16, encrypt=True)
    assert "lists no IPsec rate" in _codes(ev)["DPU_CRYPTO_LIMIT"].message


@pytest.mark.parametrize("encrypt", [False, True])
def test_cores_freed_are_count_times_the_per_dpu_figure_of_the_engines_used(catalog, encrypt):
    ev = _evaluate(catalog, "DGX-B200", storage_nodes=16, encrypt=encrypt)
    engines = catalog.get("BlueField-3").engines
    used = ["compute_virtio", "storage", "network", "control"] + (["security"] if encrypt else [])
    per_dpu = sum(engines[e].offload_cores_freed for e in used)
    model = ev.dpus.models["BlueField-3"]
    assert model.count == ev.counts.dpus == 64
    assert sorted(model.engines_used) == sorted(used)
    assert model.cores_freed_per_dpu == per_dpu
    assert model.cores_freed_total == 64 * per_dpu
    out = evaluation_to_json(ev)["dpus"]
    assert out["cores_freed_total"] == 64 * per_dpu and out["count"] == 64
    assert out["encrypt_storage"] is encrypt


def test_dpus_off_the_storage_path_free_only_network_and_control_cores(catalog):
    # converged storage goes over the compute NICs: the DPUs do not carry it
    design = generate_fat_tree(FatTreeOptions(256, "DGX-B200", "QM9700", storage="AI400X2",
                                              storage_nodes=8, storage_fabric="converged"), catalog)
    ev = evaluate(design, catalog, _job(256))
    engines = catalog.get("BlueField-3").engines
    model = ev.dpus.models["BlueField-3"]
    assert not model.on_storage_path and model.engines_used == ("network", "control")
    assert model.cores_freed_per_dpu == (engines["network"].offload_cores_freed
                                         + engines["control"].offload_cores_freed)
    assert not any("BlueField-3" in s for s in ev.storage.classes["data_loading"].stages_gbyte_s)


def test_a_design_without_dpus_has_an_empty_dpus_section(catalog):
    design = generate_fat_tree(FatTreeOptions(64, "DGX-H100", "QM9700"), catalog)
    out = evaluation_to_json(evaluate(design, catalog))["dpus"]
    assert out == {"by_model": {}, "count": 0, "cores_freed_total": None, "encrypt_storage": False}


# --------------------------------------------------------------------------- any engine rates


def _with_dpu(catalog, engines: dict) -> Catalog:
    """``catalog`` plus My-DPU (2 x 200G, ``engines``) and a DGX-B200 carrying two of them."""
    server = {**catalog.get("DGX-B200").to_json(), "id": "B200-My-DPU", "dpu": "My-DPU"}
    dpu = _dpu(ports=2, port_gbit_s=200, engines=engines)
    if not engines:
        del dpu["engines"]
    return Catalog([*catalog, parse_entry(dpu, "test", 0), parse_entry(server, "test", 1)])


def _storage_eval(catalog, encrypt: bool):
    design = generate_fat_tree(FatTreeOptions(64, "B200-My-DPU", "QM9700", storage="AI400X2",
                                              storage_nodes=4), catalog)
    design.assumptions = Assumptions(storage=StorageAssumptions(dpu_encrypt_storage=encrypt))
    return evaluate(design, catalog)


rates = st.floats(min_value=0.5, max_value=500.0, allow_nan=False)


@settings(max_examples=40)
@given(storage=rates, network_gbit_s=st.floats(min_value=4.0, max_value=4000.0),
       ipsec_gbit_s=st.floats(min_value=4.0, max_value=4000.0), encrypt=st.booleans())
def test_dpu_engines_cap_the_path_at_their_slowest_and_never_speed_it_up(
        catalog, storage, network_gbit_s, ipsec_gbit_s, encrypt):
    base = _storage_eval(_with_dpu(catalog, {}), encrypt)
    ev = _storage_eval(_with_dpu(catalog, {"storage": {"gbyte_s": storage},
                                           "network": {"gbit_s": network_gbit_s},
                                           "security": {"ipsec_gbit_s": ipsec_gbit_s}}), encrypt)
    dpus = 8 * 2  # 8 nodes, two DPUs each
    caps = [dpus * storage, dpus * network_gbit_s / 8] + ([dpus * ipsec_gbit_s / 8] if encrypt else [])
    for io_class in ("data_loading", "checkpoint_write", "checkpoint_restore"):
        expected = min([base.storage.classes[io_class].job_gbyte_s, *caps])
        assert ev.storage.classes[io_class].job_gbyte_s == pytest.approx(expected)
    dpu_binds = any(c.bottleneck.startswith("My-DPU") for c in ev.storage.classes.values())
    codes = _codes(ev)
    assert dpu_binds == ("DPU_BOTTLENECK" in codes or "DPU_CRYPTO_LIMIT" in codes)


def test_reachable_storage_bandwidth_is_capped_by_the_dpus_too(catalog):
    # bandwidth.storage_read_gbyte_s (what the GPUs can reach) follows the DPU engines as the
    # storage path does: one BlueField-3 per node passes half of what the links would
    full = _evaluate(catalog, "DGX-B200", storage_nodes=200)
    one = _evaluate(catalog, "DGX-B200", storage_nodes=200, dpus_override=1)
    per_dpu = catalog.get("BlueField-3").engines["storage"].gbyte_s
    assert one.bandwidth.storage_read_gbyte_s == pytest.approx(32 * per_dpu)
    assert full.bandwidth.storage_read_gbyte_s == pytest.approx(2 * 32 * per_dpu)
