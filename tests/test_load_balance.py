"""Fabric behaviour (issue 23): load balancing per tier and pattern, incast, in-network
reduction, their catalog fields, warnings, bottleneck naming and compare's sentence."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.load_balance import expected_max_load, tier_fractions
from core.assumptions import Assumptions, assumptions_from_dict
from core.catalog import load_catalog, load_catalog_file
from core.compare import compare_evaluations
from core.errors import CatalogError
from core.evaluate import evaluate, evaluation_to_json
from core.fabric import TierBehaviour
from core.generators import FatTreeOptions, generate_fat_tree
from core.topology import NetworkAssumptions
from core.workload import load_preset, workload_from_dict


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False)


def _evaluate(catalog, switch, gpus=4096, workload=None, oversubscription=1.0, **network):
    design = generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", switch,
                                              oversubscription=oversubscription), catalog)
    if workload is not None:
        design.workload = workload
    design.assumptions = Assumptions(network=NetworkAssumptions(**network))
    return evaluate(design, catalog)


def _spine(b: TierBehaviour | None = None, **changes) -> TierBehaviour:
    base = TierBehaviour("ecmp", 32, 32, 1.0, 1.0, 256, 4096, 8, "pfc", False, 1.0, 50.0, 6.0)
    return replace(b or base, **changes)


# --- balls into bins ------------------------------------------------------------------------
def test_expected_max_load_matches_a_simulation():
    # 32 flows hashed onto 32 uplinks: the most loaded carries ~3.5 (Monte Carlo, fixed seed)
    rng = np.random.default_rng(7)
    simulated = np.mean([np.bincount(rng.integers(0, 32, 32), minlength=32).max()
                         for _ in range(20_000)])
    assert expected_max_load(32, 32) == pytest.approx(simulated, rel=0.05)


@settings(max_examples=60, deadline=None)
@given(balls=st.integers(1, 5000), bins=st.integers(2, 512))
def test_most_loaded_bin_between_the_mean_and_all_balls(balls, bins):
    worst = expected_max_load(balls, bins)
    assert balls / bins - 1e-9 <= worst <= balls + 1e-9


def test_adaptive_and_scheduled_run_at_line_rate_ecmp_does_not():
    ecmp = tier_fractions(_spine())
    assert ecmp.by_pattern["alltoall"] < 0.8 and ecmp.by_pattern["hierarchical"] < 0.8
    # a rail-aligned ring leaves a 32-node leaf domain only twice per leaf: no collisions
    assert ecmp.by_pattern["ring"] == pytest.approx(1.0, abs=0.01)
    for mode in ("adaptive", "scheduled"):
        assert set(tier_fractions(_spine(mode=mode)).by_pattern.values()) == {1.0}


def test_queue_pair_entropy_helps_only_when_the_hash_sees_queue_pairs():
    one = tier_fractions(_spine()).by_pattern["hierarchical"]
    ecmp_more_qps = tier_fractions(_spine(qps_per_connection=4)).by_pattern["hierarchical"]
    enhanced = tier_fractions(_spine(mode="ecmp-qp", qps_per_connection=4)).by_pattern["hierarchical"]
    assert ecmp_more_qps == one
    # Meta (SIGCOMM 2024, S): E-ECMP with QP scaling, up to +40% on AllReduce over ECMP
    assert 1.2 < enhanced / one < 1.8


def test_deep_buffers_absorb_all_to_all_incast():
    shallow = tier_fractions(_spine(paths=1, buffer_mb_per_port=0.3)).incast
    deep = tier_fractions(_spine(paths=1, buffer_mb_per_port=100.0)).incast
    assert shallow < 0.95 and deep == 1.0


def test_lossy_with_selective_retransmit_beats_go_back_n():
    lossy = _spine(paths=1, flow_control="lossy", buffer_mb_per_port=0.1)
    assert (tier_fractions(replace(lossy, selective_retransmit=True)).incast
            > tier_fractions(lossy).incast)


# --- the 4,096-GPU comparison -------------------------------------------------------
def test_infiniband_spectrum_x_and_ecmp_ethernet_now_differ(catalog):
    workload = load_preset("mixtral-8x22b")
    results = {s: _evaluate(catalog, s, workload=workload) for s in ("QM9700", "SN5600", "TH5")}
    a2a = {s: r.bandwidth.alltoall_per_gpu_gbyte_s for s, r in results.items()}
    # InfiniBand with adaptive routing keeps the calibrated per-NIC rate (46-48 GB/s, #290)
    assert a2a["QM9700"] == pytest.approx(47.1, abs=0.2)
    assert a2a["TH5"] < a2a["SN5600"] < a2a["QM9700"]
    assert results["QM9700"].bandwidth.load_balancing == "adaptive"
    # ConnectX-7 is not a Spectrum-X SuperNIC: hashing (flowlets), not adaptive routing
    assert results["SN5600"].bandwidth.load_balancing == "flowlet"
    mfu = {s: r.performance.mfu for s, r in results.items()}
    assert mfu["TH5"] < mfu["SN5600"] < mfu["QM9700"]


def test_spectrum_x_with_supernics_matches_infiniband_all_to_all(catalog):
    ib = _evaluate(catalog, "QM9700", gpus=1024).bandwidth.alltoall_per_gpu_gbyte_s
    sx = _evaluate(catalog, "SN5600", gpus=1024, load_balancing="adaptive").bandwidth
    assert sx.alltoall_per_gpu_gbyte_s == pytest.approx(ib, rel=0.01)


def test_evaluation_json_bandwidth_contract(catalog):
    ev = evaluation_to_json(_evaluate(catalog, "TH5", gpus=1024, load_balancing="ecmp"))
    b = ev["bandwidth"]
    assert b["load_balancing"] == "ecmp"
    assert b["in_network_reduction"] == "none"
    assert set(b["effective_fraction_by_tier"]) == {"leaf", "spine"}
    assert set(b["effective_fraction_by_tier"]["spine"]) == {
        "ring", "tree", "hierarchical", "alltoall", "p2p"}
    json.dumps(ev)  # plain JSON: no numpy scalars
    codes = {w["code"] for w in ev["warnings"]}
    assert "ECMP_COLLISIONS" in codes


def test_in_network_reduction_switches(catalog):
    base = _evaluate(catalog, "QM9700", gpus=1024).bandwidth
    both = _evaluate(catalog, "QM9700", gpus=1024, in_network_reduction="both").bandwidth
    assert base.in_network_reduction == "none" and both.in_network_reduction == "both"
    assert both.allreduce_busbw_gbyte_s > base.allreduce_busbw_gbyte_s * 1.2
    # an Ethernet switch without in-network reduction ignores the switch
    th5 = _evaluate(catalog, "TH5", gpus=1024, in_network_reduction="sharp").bandwidth
    assert th5.in_network_reduction == "none"


def test_forcing_an_unsupported_mode_is_a_labelled_what_if(catalog):
    ev = _evaluate(catalog, "TH5", gpus=1024, load_balancing="adaptive")
    assert ev.bandwidth.load_balancing == "adaptive"
    assert any(w.code == "LOAD_BALANCING_UNSUPPORTED" for w in ev.warnings)


def test_bad_assumption_value_is_a_one_line_error():
    with pytest.raises(Exception) as info:
        assumptions_from_dict({"network": {"load_balancing": "spray"}})
    message = str(info.value)
    assert "load_balancing" in message and "\n" not in message


# --- bottleneck and compare -----------------------------------------------------------------
def _ep512():
    return workload_from_dict({
        "name": "MoE EP 512", "precision": "bf16", "training_tokens": 1e12,
        "model": {"layers": 56, "hidden": 6144, "ffn_hidden": 16384, "heads": 48, "kv_heads": 8,
                  "vocab": 32768, "seq_len": 4096, "activation": "swiglu",
                  "moe": {"experts": 512, "top_k": 8, "shared_experts": 0,
                          "expert_ffn_hidden": 1024, "dense_layers": 0}},
        "parallelism": {"tp": 1, "pp": 8, "dp": 512, "cp": 1, "ep": 512, "micro_batch": 1,
                        "global_batch": 4096, "virtual_stages": 1, "zero_stage": 1,
                        "recompute": "full"}})


def test_bottleneck_names_ecmp_collisions_when_they_limit(catalog):
    # an oversubscribed ECMP spine carrying expert all-to-all (the example)
    ev = _evaluate(catalog, "QM9700", workload=_ep512(), oversubscription=2.0,
                   load_balancing="ecmp")
    names = [limiter.name for limiter in ev.bottleneck.limiters]
    assert "expert all-to-all (ECMP collisions on the spine tier)" in names
    adaptive = next(w for w in ev.bottleneck.what_ifs if w.key == "adaptive_routing")
    assert adaptive.mfu_gain > 0.005
    assert any(w.key == "more_qps" for w in ev.bottleneck.what_ifs)


def test_bottleneck_does_not_blame_collisions_the_nics_hide(catalog):
    # 1:1: the all-to-all is NIC-bound, the spine's collisions cost it (almost) nothing; the
    # pipeline sends, which cross the spine alone, are slowed and named
    ev = _evaluate(catalog, "QM9700", workload=_ep512(), load_balancing="ecmp")
    names = {limiter.key: limiter.name for limiter in ev.bottleneck.limiters}
    assert names["ep_comm"] == "expert all-to-all"
    assert names["pp_comm"] == "pipeline point-to-point (ECMP collisions on the spine tier)"


def test_compare_summary_names_the_load_balancing(catalog):
    evs = [evaluation_to_json(_evaluate(catalog, s, gpus=1024)) for s in ("QM9700", "TH5")]
    sentence = compare_evaluations(evs, ["IB", "ETH"]).summary[1]
    assert "flowlet load balancing instead of IB's adaptive" in sentence


# --- catalog --------------------------------------------------------------------------------
def test_fabrics_of_the_seed_carry_their_behaviour(catalog):
    for switch_id in ("QM9700", "Q3400", "SN5600", "TH5", "TH6", "TH-Ultra",
                      "scaleFabric-400G", "J3AI-DDC"):
        spec = catalog.get(switch_id)
        assert spec.load_balancing and spec.flow_control and spec.fabric_source
    assert catalog.get("J3AI-DDC").load_balancing[-1] == "scheduled"
    assert "adaptive" in catalog.get("ConnectX-8").load_balancing_by_protocol["ethernet"]


@pytest.mark.parametrize("entry, field", [
    ({"load_balancing": ["ecmp", "spray"]}, "load_balancing"),
    ({"flow_control": "lossless"}, "flow_control"),
    ({"buffer_mb": -1}, "buffer_mb"),
])
def test_bad_switch_fabric_field_is_a_one_line_error(tmp_path, entry, field):
    switch = {"id": "X-SW", "kind": "switch", "vendor": "v", "name": "n", "source": "s",
              "confidence": "E", "role": "scale-out", "protocol": "ethernet",
              "ports_by_gbit_s": {"400": 64}, "latency_ns": 500, "max_power_w": 500, **entry}
    path = tmp_path / "user.json"
    path.write_text(json.dumps({"components": [switch]}))
    with pytest.raises(CatalogError) as info:
        load_catalog_file(path)
    assert field in str(info.value) and "X-SW" in str(info.value) and "\n" not in str(info.value)


def test_nic_modes_for_a_protocol_it_does_not_speak_is_an_error(tmp_path):
    nic = {"id": "X-NIC", "kind": "nic", "vendor": "v", "name": "n", "source": "s",
           "confidence": "E", "ports": 1, "port_gbit_s": 400, "power_w": 20,
           "protocols": ["ethernet"], "load_balancing_by_protocol": {"infiniband": ["adaptive"]}}
    path = tmp_path / "user.json"
    path.write_text(json.dumps({"components": [nic]}))
    with pytest.raises(CatalogError, match="load_balancing_by_protocol"):
        load_catalog_file(path)


@settings(max_examples=80, deadline=None)
@given(mode=st.sampled_from(("ecmp", "ecmp-qp", "flowlet", "adaptive", "scheduled")),
       paths=st.integers(1, 1024), sources=st.integers(1, 1024),
       per_source=st.floats(0.1, 8.0), speed=st.floats(0.25, 8.0),
       lower=st.integers(1, 100_000), qps=st.integers(1, 16),
       flow=st.sampled_from(("credit", "pfc", "lossy")), buffer_mb=st.floats(0.0, 1e4))
def test_every_fraction_is_a_share_of_line_rate(mode, paths, sources, per_source, speed, lower,
                                                qps, flow, buffer_mb):
    b = TierBehaviour(mode, paths, sources, per_source, speed, lower, lower * 4, 8, flow, False,
                      buffer_mb, 50.0, 6.0, qps_per_connection=qps)
    fractions = tier_fractions(b)
    assert all(0.0 < v <= 1.0 for v in fractions.by_pattern.values())
    assert 0.0 < fractions.incast <= 1.0


@settings(max_examples=200, deadline=None)
@given(balls=st.floats(min_value=0.01, max_value=1e5), bins=st.integers(min_value=2, max_value=4096))
def test_expected_max_load_is_what_scipy_stats_poisson_gives(balls, bins):
    # The module uses scipy.special's Poisson CDF (scipy.stats is not imported at the window's
    # start): the same function scipy.stats.poisson.cdf evaluates at whole k.
    import math

    from scipy.stats import poisson

    lam = balls / bins
    k = np.arange(int(lam + 12.0 * math.sqrt(lam) + 30) + 1)
    assert expected_max_load(balls, bins) == float(np.sum(1.0 - poisson.cdf(k, lam) ** bins))
