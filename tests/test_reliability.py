"""Reliability analysis: interruption rate, Young/Daly interval, ETTR, spares, checkpoints.

Numbers are checked against /work/shared/reference/reliability-power.md (§2-§7, §11); each
assertion cites its row.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.reliability import (
    ReliabilityAssumptions,
    analyze_reliability,
    daly_efficiency,
    daly_interval,
    ettr_curve,
    first_order_ettr,
    spares_for,
    young_interval,
)
from core.catalog import load_catalog, parse_entry
from core.fabric import FabricView, NetworkLevel
from core.inventory import Inventory, InventoryItem
from core.workload import ModelSpec, Parallelism, Workload


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False)


def item(spec, role, count, powered=True, **overrides):
    return InventoryItem(spec.id, spec.kind, role, count, spec, powered, dict(overrides))


def dgx_nodes(catalog, n, server_id="DGX-H100"):
    server = catalog.get(server_id)
    items = [
        item(server, "compute", n),
        item(catalog.get(server.accelerator), "accelerator", n * 8, False),
        item(catalog.get(server.nic), "nic", n * server.nics, False),
    ]
    for su in server.scale_up_switches:
        items.append(item(catalog.get(su.id), "scale-up", n * su.count, False))
    return items


def cluster(catalog, gpus):
    """Rail-optimised fat tree of DGX H100: 8 rail leaves per 256 GPUs; spines per 4,096-GPU
    pod (k=64: 32 leaves x 32 uplinks / 64 = 16 per pod up to 1,024 GPUs, 32 per larger pod);
    a core tier above 4,096 GPUs. Switch-side optics: one per GPU link and two per uplink."""
    nodes = gpus // 8
    leaves = gpus // 32
    qm = catalog.get("QM9700")
    optic = catalog.get("OSFP-400G-SR4")
    items = dgx_nodes(catalog, nodes) + [item(qm, "leaf", leaves)]
    if gpus > 256:
        items.append(item(qm, "spine", max(16, leaves // 2)))
    if gpus > 4096:
        items.append(item(qm, "core", leaves // 4))
    uplinks = gpus if gpus > 256 else 0
    upper = gpus if gpus > 4096 else 0
    items.append(item(optic, "transceiver", gpus + 2 * uplinks + 2 * upper))
    return Inventory(tuple(items))


def fabric_for(catalog, gpus):
    levels = [NetworkLevel("scale-up", 8, 450, 370, 0.5, 1), NetworkLevel("leaf", min(256, gpus), 50, 47, 2, 1)]
    if gpus > 256:
        levels.append(NetworkLevel("spine", min(4096, gpus), 50, 47, 3, 3))
    if gpus > 4096:
        levels.append(NetworkLevel("core", gpus, 50, 47, 4, 5))
    return FabricView(gpus, catalog.get("H100-SXM5-80GB"), 8, tuple(levels))


GPT3 = ModelSpec(layers=96, hidden=12288, ffn_hidden=49152, heads=96, vocab=51200, seq_len=2048)


def workload(gpus, model=GPT3):
    pp = 8 if gpus >= 64 else 1
    tp = min(8, gpus)
    dp = gpus // (tp * pp)
    return Workload("test", model, Parallelism(tp=tp, pp=pp, dp=dp, global_batch=dp * 8))


def per_node_rate(r_f, **changes):
    """Assumptions under which every DGX H100 node fails at r_f per 1000 node-days (all host)."""
    zero = {"H100-SXM5-80GB": 0.0, "ConnectX-7": 0.0, "NVSwitch-Gen3": 0.0, "QM9700": 0.0,
            "DGX-H100": r_f}
    base = dict(software_per_1000_node_days=0.0, link_per_1000_days=0.0, rate_overrides=zero)
    base.update(changes)
    return ReliabilityAssumptions(**base)


# --------------------------------------------------------------------------- §3 Young / Daly


@pytest.mark.parametrize(
    "mtbi_min,expected",
    [(24 * 60, 117.0), (6 * 60, 57.0), (15, 9.15)],  # §3 check table: 117, 57, 9.1-9.2 min
)
def test_daly_interval_table(mtbi_min, expected):
    # §3: R = 10 min, δ = 5 min (R does not enter the optimum).
    assert daly_interval(5.0, mtbi_min) == pytest.approx(expected, abs=0.5 if expected > 20 else 0.06)


def test_daly_interval_is_the_numeric_optimum():
    # §3 check: a numeric minimum of T_w reproduces Daly's examples (116.7, 56.7, 9.2 min).
    for mtbi, numeric in ((24 * 60, 116.7), (6 * 60, 56.7), (15, 9.2)):
        taus = np.linspace(0.5, 300, 60000)
        best = taus[np.argmax(ettr_curve(mtbi / 60, 300, 10, taus))]
        assert best == pytest.approx(numeric, abs=0.1)


def test_young_and_large_delta():
    assert young_interval(5.0, 24 * 60) == pytest.approx(math.sqrt(2 * 5 * 1440))
    # §3: τ_opt = M for δ ≥ 2M.
    assert daly_interval(30.0, 10.0) == 10.0


# --------------------------------------------------------------------------- §4 ETTR


@pytest.mark.parametrize(
    "r_f,gpus,delta,restart,expected",
    [
        (5.0, 16384, 1.0, 10.0, 0.825),   # §4 worked table, r_f 5.0, 16,384 GPUs, δ 1 / R 10
        (2.34, 1024, 0.1, 5.0, 0.993),    # r_f 2.34, 1,024 GPUs, δ 0.1 / R 5
        (2.34, 16384, 0.1, 5.0, 0.958),   # r_f 2.34, 16,384, δ 0.1 / R 5
        (5.0, 100000, 5.0, 20.0, 0.200),  # r_f 5.0, 100,000, δ 5 / R 20
        (6.5, 16384, 5.0, 20.0, 0.603),   # r_f 6.5, 16,384, δ 5 / R 20
    ],
)
def test_ettr_worked_table_formula(r_f, gpus, delta, restart, expected):
    mtbi_min = 24 * 60 * 1000 / (gpus / 8 * r_f)
    tau = daly_interval(delta, mtbi_min)
    assert daly_efficiency(tau, delta, restart, mtbi_min) == pytest.approx(expected, abs=0.01)


def test_ettr_worked_table_through_the_analysis(catalog):
    # §4 worked table: r_f 5.0, 16,384 GPUs (M 2.3 h), δ 1 min, R 10 min -> 0.825.
    a = per_node_rate(5.0, detection_min=0.0, restart_min=10.0, async_blocking_s=60.0)
    result = analyze_reliability(cluster(catalog, 16384), fabric_for(catalog, 16384),
                                 workload(16384), 1000.0, (), a)
    assert result.job_gpus == 16384 and result.job_nodes == 2048
    assert result.mtbi_hours == pytest.approx(2.34, abs=0.01)
    assert result.ettr == pytest.approx(0.825, abs=0.01)
    # r_f 2.34, 1,024 GPUs (M 80 h), δ 0.1 min, R 5 -> 0.993 at τ ≈ 31 min.
    a = per_node_rate(2.34, detection_min=2.0, restart_min=3.0, async_blocking_s=6.0)
    result = analyze_reliability(cluster(catalog, 1024), fabric_for(catalog, 1024),
                                 workload(1024), 1000.0, (), a)
    assert result.mtbi_hours == pytest.approx(80, rel=0.01)
    assert result.ettr == pytest.approx(0.993, abs=0.01)
    assert result.checkpoint_interval_min == pytest.approx(31, abs=0.5)


def test_kokolis_first_order_check():
    # §4 check: 16,384 GPUs, r_f 6.5, u0 = Δt = 5 min, w = 0 -> 0.931 ("0.93" in the paper);
    # the same job with a 60-min interval -> 0.68.
    mtbi_min = 24 * 60 * 1000 / (2048 * 6.5)
    assert first_order_ettr(5.0, 0.0, 5.0, mtbi_min) == pytest.approx(0.931, abs=0.001)
    assert first_order_ettr(60.0, 0.0, 5.0, mtbi_min) == pytest.approx(0.68, abs=0.01)
    # The exact form agrees when λ(τ+R) ≪ 1.
    assert daly_efficiency(5.0, 0.0, 5.0, mtbi_min) == pytest.approx(0.931, abs=0.005)


def test_ettr_curve_matches_scalar_and_peaks_at_daly():
    intervals = np.linspace(1, 240, 480)
    curve = ettr_curve(2.0, 60.0, 10.0, intervals)
    assert curve.shape == intervals.shape
    assert curve[100] == pytest.approx(daly_efficiency(intervals[100], 1.0, 10.0, 120.0))
    assert intervals[np.argmax(curve)] == pytest.approx(daly_interval(1.0, 120.0), abs=0.5)
    # No overflow warnings or NaN for tiny MTBI; no failures -> only the save overhead.
    assert np.all(np.isfinite(ettr_curve(0.01, 60.0, 10.0, np.array([0.0, 1.0, 1e5]))))
    assert ettr_curve(0.0, 60.0, 10.0, np.array([59.0]))[0] == pytest.approx(59 / 60)


# --------------------------------------------------------------------------- §2 rates


def test_dgx_h100_node_default_rate(catalog):
    # §2 total: ≈3.9 per 1000 node-days = 8·0.25 + 8·0.03 + 8·0.02 + 0.45 + 1.0 (= 3.85;
    # the catalog adds 4 NVSwitch chips at 0.02).
    result = analyze_reliability(Inventory(tuple(dgx_nodes(catalog, 1))), None, None, 0.0)
    assert result.rate_per_1000_node_days == pytest.approx(3.9, abs=0.1)
    assert result.rate_by_kind["gpu"] * 1000 == pytest.approx(8 * 0.25)
    assert result.rate_by_kind["link"] * 1000 == pytest.approx(8 * 0.02)
    assert result.mtbi_hours == pytest.approx(24_000 / result.rate_per_1000_node_days)


def test_defaults_apply_when_the_catalog_has_no_rate():
    # §2 per-component defaults only (no catalog rates): exactly 3.85 per 1000 node-days.
    common = {"vendor": "t", "name": "t", "source": "t", "confidence": "E"}
    gpu = parse_entry({**common, "id": "G", "kind": "accelerator", "tflops_dense": {"bf16": 1},
                       "hbm_gb": 80, "hbm_tbyte_s": 3, "tdp_w": 700,
                       "scale_up_gbyte_s_per_dir": 450}, "t", 0)
    nic = parse_entry({**common, "id": "N", "kind": "nic", "ports": 1, "port_gbit_s": 400,
                       "power_w": 25}, "t", 1)
    server = parse_entry({**common, "id": "S", "kind": "server", "accelerator": "G",
                          "accelerators": 8, "nic": "N", "nics": 8, "max_power_kw": 10.2}, "t", 2)
    inventory = Inventory((item(server, "compute", 4), item(gpu, "accelerator", 32, False),
                           item(nic, "nic", 32, False)))
    result = analyze_reliability(inventory, None, None, 0.0)
    assert result.rate_per_1000_node_days == pytest.approx(3.85)
    assert result.interruptions_per_day == pytest.approx(4 * 3.85 / 1000)


def test_partial_job_sees_fewer_interruptions(catalog):
    inventory, fabric = cluster(catalog, 16384), fabric_for(catalog, 16384)
    whole = analyze_reliability(inventory, fabric, None, 1000.0)
    part = analyze_reliability(inventory, fabric, workload(1024), 1000.0)
    assert whole.job_gpus == 16384 and part.job_gpus == 1024 and part.job_nodes == 128
    assert part.interruptions_per_day < whole.interruptions_per_day / 10
    # A job inside one leaf domain uses no spine, core or uplinks; a 1,024-GPU job uses its
    # 4 leaf domains' leaves and uplinks and a quarter of the pod spines, but no core.
    small = analyze_reliability(inventory, fabric, workload(256), 1000.0)
    assert small.rate_by_kind["switch"] * 1000 == pytest.approx(8 * 0.02)
    leaves_total, spines = 16384 // 32, 16384 // 64
    assert part.rate_by_kind["switch"] * 1000 == pytest.approx(
        (leaves_total * 1024 / 16384 + spines * 0.25) * 0.02)
    # Links: the job's 1,024 node links + its leaf share (1/16) of the 32,768 switch-to-switch
    # links (16,384 leaf-spine + 16,384 spine-core, derived from (ends - node links) / 2).
    assert part.rate_by_kind["link"] * 1000 == pytest.approx((1024 + 32768 / 16) * 0.02)
    assert whole.rate_by_kind["switch"] * 1000 == pytest.approx(
        (leaves_total + spines + 16384 // 128) * 0.02)


def test_rate_overrides_change_the_result(catalog):
    inventory = Inventory(tuple(dgx_nodes(catalog, 128)))
    base = analyze_reliability(inventory, None, None, 0.0)
    # Project-level override by catalog id (§2 GPU range 0.14-0.75).
    worse = analyze_reliability(inventory, None, None, 0.0,
                                assumptions=ReliabilityAssumptions(rate_overrides={"H100-SXM5-80GB": 0.75}))
    assert worse.rate_by_kind["gpu"] == pytest.approx(1024 * 0.75 / 1000)
    assert worse.interruptions_per_day > base.interruptions_per_day
    # Per-item override beats the project override and the catalog.
    items = list(inventory.items)
    items[1] = item(items[1].spec, "accelerator", 1024, False, failure_rate_per_1000_days=0.14)
    better = analyze_reliability(Inventory(tuple(items)), None, None, 0.0,
                                 assumptions=ReliabilityAssumptions(rate_overrides={"H100-SXM5-80GB": 0.75}))
    assert better.rate_by_kind["gpu"] == pytest.approx(1024 * 0.14 / 1000)
    # Planned interruptions add per job.
    planned = analyze_reliability(inventory, None, None, 0.0,
                                  assumptions=ReliabilityAssumptions(planned_per_day=0.5))
    assert planned.interruptions_per_day == pytest.approx(base.interruptions_per_day + 0.5)


def test_chassis_switch_multiplier():
    # §2: chassis switches fail ~123x as often as single-chip switches (HPN).
    common = {"vendor": "t", "name": "t", "source": "t", "confidence": "E", "kind": "switch",
              "role": "scale-out", "protocol": "ethernet", "ports_by_gbit_s": {"400": 64},
              "latency_ns": 500, "max_power_w": 1000}
    chip = parse_entry({**common, "id": "chip"}, "t", 0)
    box = parse_entry({**common, "id": "box", "chassis": True}, "t", 1)
    inventory = Inventory((item(chip, "leaf", 10), item(box, "spine", 2)))
    result = analyze_reliability(inventory, None, None, 0.0)
    assert result.rate_by_kind["switch"] * 1000 == pytest.approx(10 * 0.02 + 2 * 0.02 * 123)


# --------------------------------------------------------------------------- §5 spares


def test_spares_table():
    # §5: μ 3.5 -> 9 nodes (μ = 128 x 5/1000 x 5.5 = 3.52); μ 56 -> 74; μ 344 -> 388; μ 4.1 -> 9.
    assert spares_for(128 * 5 / 1000 * 5.5, 0.99) == 9
    assert spares_for(56, 0.99) == 74
    assert spares_for(344, 0.99) == 388
    assert spares_for(4.1, 0.99) == 9
    assert spares_for(0.0, 0.99) == 0


def test_spares_through_the_analysis(catalog):
    # §5 rows 1-2: 1,024 and 16,384 GPUs at 5 per 1000 node-days, 5.5 d repair -> 9 and 74.
    # Software faults do not take nodes out of service; here all 5 are hardware.
    a = per_node_rate(5.0)
    small = analyze_reliability(Inventory(tuple(dgx_nodes(catalog, 128))), None, None, 0.0, (), a)
    assert small.spares_for_target == 9
    big = analyze_reliability(Inventory(tuple(dgx_nodes(catalog, 2048))), None, None, 0.0, (), a)
    assert big.spares_for_target == 74
    # 5% of 2,048 nodes = 102 spares >= 74: no warning; 5% of 128 = 6 < 9: warning.
    assert "SPARES_SHORT" not in {d.code for d in big.diagnostics}
    assert "SPARES_SHORT" in {d.code for d in small.diagnostics}
    # §4 R_eff: waiting for a repair when no spare is free lowers ETTR.
    waited = analyze_reliability(Inventory(tuple(dgx_nodes(catalog, 128))), None, None, 0.0, (),
                                 per_node_rate(5.0, include_spare_wait=True))
    assert 0 < small.spare_available_probability < 1
    assert waited.restart_total_min > small.restart_total_min
    assert waited.ettr < small.ettr


# --------------------------------------------------------------------------- §6/§7 checkpoints


def test_checkpoint_size_and_sync_write(catalog):
    # §6: 175B at 14 B/param ≈ 2.45 TB.
    inventory = Inventory(tuple(dgx_nodes(catalog, 128)))
    a = ReliabilityAssumptions(checkpoint_mode="sync")
    result = analyze_reliability(inventory, None, workload(1024), 65.0, (), a)
    assert result.checkpoint_size_gb == pytest.approx(2450, rel=0.01)
    # One AI400X2 writes ~65 GB/s (hardware.md §7) x 0.8 efficiency -> ~47 s blocking.
    assert result.checkpoint_write_s == pytest.approx(result.checkpoint_size_gb / (65 * 0.8))
    assert result.checkpoint_blocking_s == result.checkpoint_write_s
    # Async (§7/§11): 1 s blocking, so a shorter interval and a higher ETTR.
    fast = analyze_reliability(inventory, None, workload(1024), 65.0)
    assert fast.checkpoint_blocking_s == 1.0
    assert fast.checkpoint_write_s == result.checkpoint_write_s
    assert fast.ettr > result.ettr
    assert fast.checkpoint_interval_min >= fast.checkpoint_write_s / 60


def test_async_interval_is_at_least_the_persist_time(catalog):
    inventory = Inventory(tuple(dgx_nodes(catalog, 2048)))
    result = analyze_reliability(inventory, None, workload(16384), 1.0)  # 1 GB/s: ~51 min persist
    assert result.checkpoint_interval_min == pytest.approx(result.checkpoint_write_s / 60)
    assert result.checkpoint_interval_min > result.daly_interval_min
    assert "CHECKPOINT_PERSIST_SLOW" in {d.code for d in result.diagnostics}


def test_no_workload_restart_loss_only(catalog):
    inventory = Inventory(tuple(dgx_nodes(catalog, 128)))
    result = analyze_reliability(inventory, None, None, 0.0)
    assert result.checkpoint_size_gb is None and result.checkpoint_write_s is None  # nothing to checkpoint
    assert result.checkpoint_blocking_s == 0.0 and result.checkpoint_missing == "no workload"
    assert result.checkpoint_interval_min is None  # no checkpoint, so no interval to advise
    assert result.job_gpus == 1024
    m_min = result.mtbi_hours * 60
    assert result.ettr == pytest.approx(math.exp(-7.0 / m_min))  # R = 2 + 5 min (§7 defaults)
    assert result.interruptions_per_day > 0
    assert not result.diagnostics or all(d.code == "SPARES_SHORT" for d in result.diagnostics)


def test_no_storage_sync_is_json_friendly(catalog):
    inventory = Inventory(tuple(dgx_nodes(catalog, 128)))
    a = ReliabilityAssumptions(checkpoint_mode="sync")
    result = analyze_reliability(inventory, None, workload(1024), 0.0, ("cluster/storage-switch",), a)
    assert "NO_STORAGE" in {d.code for d in result.diagnostics}
    assert result.checkpoint_write_s is None and not result.checkpoint_persisted
    assert result.checkpoint_blocking_s == 300.0  # §7/§11: 5 min sync save
    assert result.single_points_of_failure == 1
    data = json.loads(json.dumps(result.to_json(), allow_nan=False))
    for key in ("interruptions_per_day", "mtbi_hours",
                "checkpoint_interval_min", "ettr", "single_points_of_failure"):
        assert isinstance(data[key], (int, float))  # DESIGN.md evaluation JSON "reliability"
    assert data["checkpoint_write_s"] is None  # nothing persists it: no time, not 0 s


def test_empty_design_and_auto_parallelism(catalog):
    empty = analyze_reliability(Inventory(()), None, None, 0.0)
    json.dumps(empty.to_json(), allow_nan=False)
    assert empty.interruptions_per_day == 0.0 and empty.ettr == 1.0
    auto = Workload("auto", GPT3, "auto")
    result = analyze_reliability(cluster(catalog, 1024), fabric_for(catalog, 1024), auto, 100.0)
    assert result.job_gpus == 1024
    big = analyze_reliability(cluster(catalog, 1024), fabric_for(catalog, 1024), workload(2048), 100.0)
    assert big.job_gpus == 1024
    assert "JOB_EXCEEDS_DESIGN" in {d.code for d in big.diagnostics}



@settings(max_examples=300, deadline=None)
@given(mu=st.floats(min_value=1e-9, max_value=1e22), target=st.floats(min_value=0.0, max_value=1 - 1e-12))
def test_spares_match_scipy_stats_poisson_inverse_cdf(mu, target):
    # The window no longer imports scipy.stats at start (most of a second): the spares come
    # from the same special functions scipy.stats.poisson.ppf uses, and must agree with it.
    from scipy import stats  # noqa: PLC0415

    k = stats.poisson.ppf(target, mu)
    if not math.isfinite(k):
        k = math.ceil(mu + stats.norm.ppf(target) * math.sqrt(mu))
    assert spares_for(mu, target) == int(k)
