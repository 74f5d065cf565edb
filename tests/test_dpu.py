"""DPUs that do work (issue 14, article 003's five engines): catalog engines, the DPU stage of
the storage path, the crypto check, host cores freed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.catalog import load_catalog
from core.dpu_engines import ENGINES
from core.errors import CatalogError

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
    engines = spec["engines"]
    assert tuple(engines) == ENGINES
    for name, engine in engines.items():
        assert engine["evidence"], (dpu_id, name)
        assert engine["note"], (dpu_id, name)
    # the network engine's line rate is the card's
    assert engines["network"]["gbit_s"] == spec["ports"] * spec["port_gbit_s"]
    assert "§8 (DPU engines)" in spec.source


def test_builtin_dpu_figures_follow_their_sources():
    catalog = load_catalog(include_user=False)
    bf3, bf4, panshi = (catalog.get(i)["engines"] for i in DPU_IDS)
    assert bf3["security"]["ipsec_gbit_s"] == 400          # datasheet: line-rate IPsec
    assert bf3["control"]["arm_cores"] == 16
    assert bf4["control"]["arm_cores"] == 64
    assert panshi["network"]["gbit_s"] == 400              # article 003: ~400 Gbps
    # figures nobody publishes are tagged as estimates
    assert "E" in panshi["storage"]["evidence"] and "E" in bf4["security"]["evidence"]


def test_a_user_dpu_with_engines_loads(tmp_path):
    catalog = load_catalog(extra_files=[_write(tmp_path, [_dpu()])], include_user=False)
    assert catalog.get("My-DPU")["engines"]["storage"]["gbyte_s"] == 20


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
