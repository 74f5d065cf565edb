"""Chart series computed in core for the GUI."""

from core.evaluate import evaluate
from core.generators import FatTreeOptions, generate_fat_tree
from core.series import ettr_series, mfu_scaling_series
from core.workload import load_preset, with_parallelism


def test_mfu_scaling_series_ends_at_the_job_and_mfu_does_not_rise_with_scale(catalog):
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700", oversubscription=3), catalog)
    design.workload = load_preset("gpt3-175b")
    ev = evaluate(design, catalog)
    series = mfu_scaling_series(ev)
    gpus = [g for g, _ in series]
    assert gpus == sorted(gpus) and gpus[-1] == ev.performance.job_gpus
    assert series[-1][1] == ev.performance.mfu
    assert series[0][1] >= series[-1][1] - 1e-9  # an oversubscribed spine only hurts larger jobs


def test_ettr_series_peaks_near_the_daly_interval(catalog):
    design = generate_fat_tree(FatTreeOptions(16384, "DGX-H100", "QM9700"), catalog)
    design.workload = load_preset("llama3-405b")
    ev = evaluate(design, catalog)
    intervals, values = ettr_series(ev)
    best = intervals[max(range(len(values)), key=values.__getitem__)]
    assert abs(best - ev.reliability.checkpoint_interval_min) / ev.reliability.checkpoint_interval_min < 0.2
    assert max(values) <= 1.0


def test_series_are_empty_without_a_workload(catalog):
    ev = evaluate(generate_fat_tree(FatTreeOptions(64, "DGX-H100", "QM9700"), catalog), catalog)
    assert mfu_scaling_series(ev) == ()


def test_mfu_scaling_series_has_no_value_where_the_job_cannot_run(catalog):
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog)
    # ZeRO-1 shards the optimizer over DP: the smallest replicas overflow the 80 GB of an H100.
    design.workload = with_parallelism(load_preset("llama3-70b"), tp=8, pp=1, dp=128, zero_stage=1,
                                       recompute="selective", global_batch=2048, micro_batch=1,
                                       virtual_stages=1)
    ev = evaluate(design, catalog)
    assert ev.performance.fits_memory
    series = dict(mfu_scaling_series(ev))
    assert series[16] is None and series[32] is None  # does not fit in memory
    assert all(0 < mfu < 1 for gpus, mfu in series.items() if gpus >= 64)
    assert series[1024] == ev.performance.mfu


def test_mfu_scaling_series_has_no_value_beyond_the_design(catalog):
    # Meta's 16,384-GPU layout on a 1,024-GPU fabric: that size cannot run here.
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog)
    design.workload = load_preset("llama3-405b")
    series = dict(mfu_scaling_series(evaluate(design, catalog)))
    assert series[16384] is None
    assert all(mfu is not None for gpus, mfu in series.items() if gpus <= 1024)
