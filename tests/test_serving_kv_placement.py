"""Where the KV cache lives (issue 15): host memory adds capacity and is read over the host link
(the workload's figure, else the accelerator's catalog ``host_link_gbyte_s``, else a located
error); a remote prefix cache serves part of each prompt, read over the design's storage path
instead of computed (no storage: a located error)."""

import copy
import json
from pathlib import Path

import pytest

from core.analysis.collectives import allreduce_time_s
from core.analysis.inference import analyze_inference
from core.assumptions.inference import InferenceAssumptions
from core.catalog import default_catalog
from core.errors import CatalogError
from core.evaluate import evaluate, evaluation_to_json
from core.generators import FatTreeOptions, generate_fat_tree
from core.generators.supernode import SupernodeOptions, generate_supernode
from core.inference_workload import inference_workload_from_dict, list_inference_presets
from core.report import render_report

CATALOG = default_catalog()
LLAMA = json.loads(list_inference_presets()["llama31-70b-serve"].read_text())
A = InferenceAssumptions()
FIXED_S = 80 * A.fixed_us_per_layer * 1e-6  # Llama 70B's 80 layers x 30.9 us, every step
PARAMS_70B = 70_552_387_584
KV_PER_GPU = 2 * 80 * 8 * 128 * 2 / 8  # bf16, TP 8 over 8 KV heads: 40 KiB per token per GPU
DGX = generate_supernode(SupernodeOptions("DGX-H100", 1), CATALOG)
H100 = evaluate(DGX, CATALOG).topology.fabric
H100_BYTES = 81_559 * 2**20  # what the driver reports an "80GB" H100 holds (nvidia-smi)
FREE = H100_BYTES * (1 - A.activation_reserve_fraction) - PARAMS_70B * 2 / 8  # 59.3 GB per GPU


def _workload(kv_cache: dict, batch: int = 64, **changes):
    raw = copy.deepcopy(LLAMA)
    raw["kv_cache"] = kv_cache
    raw["deployment"]["batch"] = batch
    raw.update(changes)
    return inference_workload_from_dict(raw)


def test_host_memory_adds_kv_capacity():
    hbm = analyze_inference(H100, _workload({"placement": "hbm"}, batch=5000), 10.0)
    host = analyze_inference(H100, _workload({"placement": "host", "host_gb_per_gpu": 256}, batch=5000), 10.0)
    assert hbm.max_concurrency_per_replica == int(FREE // (2304 * KV_PER_GPU)) == 628
    assert host.max_concurrency_per_replica == int((FREE + 256e9) // (2304 * KV_PER_GPU)) == 3341


def test_the_kv_beyond_hbm_is_read_over_the_host_link_every_decode_step():
    workload = _workload({"placement": "host", "host_gb_per_gpu": 256, "host_link_gbyte_s": 64}, batch=2000)
    result = analyze_inference(H100, workload, 10.0)
    kv = 2000 * (2048 + 128) * KV_PER_GPU  # 178 GB of KV per GPU at the mean decode context
    from_host = kv - FREE  # 119 GB of it in host memory
    fetch = from_host / (64e9 * A.host_link_efficiency)  # 2.4 s a step at 51 GB/s
    assert result.decode.kv_fetch_s == pytest.approx(fetch, rel=1e-9)
    assert result.decode.bound == "host_link"
    # overlapped with the HBM reads (which include the fetched bytes) and the compute
    comm = 2 * 80 * allreduce_time_s(H100, 2000 * 8192 * 2.0, 8)
    assert result.decode.communication_s == pytest.approx(comm, rel=1e-12)
    assert result.decode_step_ms == pytest.approx((fetch + comm + FIXED_S) * 1e3, rel=1e-9)
    assert result.kv_placement.host_kv_gb_per_gpu == pytest.approx(from_host / 1e9)
    assert "SLO_MISSED" in {d.code for d in result.diagnostics}


def test_a_batch_that_fits_in_hbm_reads_nothing_from_the_host():
    hbm = analyze_inference(H100, _workload({"placement": "hbm"}), 10.0)
    host = analyze_inference(H100, _workload({"placement": "host", "host_gb_per_gpu": 256}), 10.0)
    assert host.decode.kv_fetch_s == 0.0 and host.kv_placement.host_kv_gb_per_gpu == 0.0
    assert host.decode_step_ms == hbm.decode_step_ms and host.ttft_ms == hbm.ttft_ms


def test_the_host_link_comes_from_the_workload_else_the_catalog_else_an_error():
    catalog_link = analyze_inference(H100, _workload({"placement": "host", "host_gb_per_gpu": 256}), 10.0)
    assert catalog_link.kv_placement.host_link_gbyte_s == 64  # H100: PCIe Gen5 x16
    own = analyze_inference(H100, _workload({"placement": "host", "host_gb_per_gpu": 256,
                                             "host_link_gbyte_s": 32}), 10.0)
    assert own.kv_placement.host_link_gbyte_s == 32
    a100 = evaluate(generate_supernode(SupernodeOptions("DGX-A100", 1), CATALOG), CATALOG).topology.fabric
    assert a100.accelerator.host_link_gbyte_s is None
    result = analyze_inference(a100, _workload({"placement": "host", "host_gb_per_gpu": 256}), 10.0)
    assert not result.runs and result.tpot_ms is None
    (reason,) = result.cannot_run
    assert reason.code == "HOST_LINK_UNKNOWN" and reason.severity == "error"
    assert reason.message.startswith("inference.kv_cache.host_link_gbyte_s: ")
    assert "A100-SXM4-80GB" in reason.message


@pytest.mark.parametrize("accelerator, link", [("H100-SXM5-80GB", 64), ("H200-SXM", 64), ("B200", 64),
                                               ("MI300X", 64), ("MI325X", 64), ("MI355X", 64),
                                               ("GB200", 225), ("GB300", 225)])
def test_the_catalog_gives_the_host_link_with_its_source(accelerator, link):
    spec = CATALOG.get(accelerator)
    assert spec.host_link_gbyte_s == link
    assert "host_link_gbyte_s: " in spec.source and "serving-model.md" in spec.source


def test_a_host_link_that_is_not_positive_is_refused():
    from core.catalog import parse_entry

    raw = {**_h100_entry(), "host_link_gbyte_s": 0}
    with pytest.raises(CatalogError, match="field 'host_link_gbyte_s': must be positive"):
        parse_entry(raw, "user.json", 0)


def _h100_entry() -> dict:
    path = Path(__file__).resolve().parent.parent / "resources" / "catalog" / "accelerators.json"
    entries = json.loads(path.read_text())["components"]
    return next(e for e in entries if e["id"] == "H100-SXM5-80GB")


# --- a remote prefix cache --------------------------------------------------------------------

def _prefill_with_hits(hit: float, storage_gbyte_s: float):
    workload = _workload({"placement": "remote", "prefix_hit_rate": hit}, batch=1)
    return analyze_inference(H100, workload, 10.0, storage_read_gbyte_s_per_gpu=storage_gbyte_s)


def test_the_prefix_cache_computes_only_the_misses_and_reads_the_hits():
    result = _prefill_with_hits(0.5, 5.0)
    # the 1,024 missed tokens: their linear FLOPs, and attention over every earlier position
    # (the 1,024 served ones included): (2,048^2 - 1,024^2) / 2 pairs
    flops = 1024 * 2 * PARAMS_70B + 0.5 * (2048**2 - 1024**2) * 80 * 4 * 8192
    compute = flops / 8 / (989.4e12 * A.prefill_compute_efficiency)
    fetch = 1024 * KV_PER_GPU / (5e9 * A.prefix_cache_read_efficiency)  # 42 MB at 4 GB/s: 10.5 ms
    comm = 2 * 80 * allreduce_time_s(H100, 1024 * 8192 * 2.0, 8)
    assert result.prefill.compute_s == pytest.approx(compute, rel=1e-9)
    assert result.prefill.kv_fetch_s == pytest.approx(fetch, rel=1e-9)
    assert result.prefill.communication_s == pytest.approx(comm, rel=1e-12)
    assert result.ttft_unloaded_ms == pytest.approx((max(compute, fetch) + comm + FIXED_S) * 1e3, rel=1e-9)
    none = _prefill_with_hits(0.0, 5.0)
    assert none.ttft_unloaded_ms > 1.5 * result.ttft_unloaded_ms
    assert none.prefill.kv_fetch_s == 0.0
    # the decode phase is unchanged: the prefix cache is not where the live KV cache lives
    assert none.decode_step_ms == result.decode_step_ms


def test_a_slow_storage_path_binds_the_prefill():
    result = _prefill_with_hits(0.9, 0.05)  # 50 MB/s per GPU
    assert result.prefill.bound == "storage"
    assert result.ttft_unloaded_ms > _prefill_with_hits(0.0, 0.05).ttft_unloaded_ms


def test_remote_needs_a_storage_tier_and_reads_the_storage_analysis_per_gpu():
    no_storage = evaluation_to_json(evaluate(DGX, CATALOG, _workload({"placement": "remote",
                                                                      "prefix_hit_rate": 0.5})))
    inference = no_storage["inference"]
    assert inference["runs"] is False and inference["ttft_ms"] is None
    (reason,) = inference["cannot_run"]
    assert reason["code"] == "NO_KV_STORAGE" and reason["severity"] == "error"
    assert reason["message"].startswith("inference.kv_cache.placement: a remote prefix cache needs a storage tier")
    design = generate_fat_tree(FatTreeOptions(64, "DGX-H100", "QM9700", storage="AI400X2", storage_nodes=4),
                               CATALOG)
    ev = evaluation_to_json(evaluate(design, CATALOG, _workload({"placement": "remote", "prefix_hit_rate": 0.5})))
    per_gpu = ev["storage"]["data_loading"]["per_gpu_gbyte_s"]
    assert per_gpu > 0
    assert ev["inference"]["runs"] is True
    assert ev["inference"]["kv_placement"]["storage_read_gbyte_s_per_gpu"] == per_gpu
    assert ev["inference"]["prefill"]["kv_fetch_s"] == pytest.approx(
        1024 * KV_PER_GPU / (per_gpu * 1e9 * A.prefix_cache_read_efficiency), rel=1e-9)


def test_the_report_says_where_the_kv_cache_lives():
    text = render_report(evaluate(DGX, CATALOG, _workload({"placement": "host", "host_gb_per_gpu": 256},
                                                          batch=2000)), "md")
    assert "| KV cache placement | HBM and host memory: 256 GB per GPU over 64 GB/s per direction; " in text
    assert "| Decode step | host link-bound: " in text
