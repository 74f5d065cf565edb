"""Chart series derived from an evaluation (the GUI plots them; core computes them).

* ``mfu_scaling_series``: MFU of the workload at several data-parallel sizes on the same fabric
  (weak scaling: the same micro-batches per replica), each a full performance analysis; None
  at a size where the job cannot run (the analysis's own judgement, ``PerformanceResult.mfu``
  is None there: a chart must not draw that as a number).
* ``ettr_series``: ETTR against checkpoint interval around the Daly optimum.
"""

from __future__ import annotations

from core.analysis.performance import analyze_performance
from core.analysis.reliability import ettr_curve
from core.errors import DesignError
from core.evaluate import Evaluation
from core.workload import with_parallelism

SCALING_POINTS = 7
ETTR_POINTS = 120


def mfu_scaling_series(ev: Evaluation, points: int = SCALING_POINTS) -> tuple[tuple[int, float | None], ...]:
    """(job GPUs, MFU or None where the job cannot run) pairs, smallest job first; empty
    without a workload."""
    perf, workload, fabric = ev.performance, ev.workload, ev.job_fabric
    if perf is None or workload is None or fabric is None:
        return ()
    par = perf.parallelism
    model_parallel = par.tp * par.pp * par.cp
    max_dp = max(1, fabric.gpus // model_parallel)
    step = par.ep if par.ep > 1 else 1
    sizes = sorted({max(step, (max_dp >> k) // step * step) for k in range(12)} | {par.dp})
    out = []
    for dp in [s for s in sizes if s >= 1][-points:]:
        try:
            candidate = with_parallelism(
                workload, tp=par.tp, pp=par.pp, cp=par.cp, ep=par.ep, dp=dp,
                micro_batch=par.micro_batch, virtual_stages=par.virtual_stages,
                zero_stage=par.zero_stage, recompute=par.recompute,
                global_batch=dp * par.micro_batch * perf.microbatches)
        except DesignError:  # no valid layout at this size: a gap in the chart, not a failed evaluation
            out.append((dp * model_parallel, None))
            continue
        result = analyze_performance(fabric, candidate, ev.assumptions.performance, ev.reliability.ettr)
        out.append((result.job_gpus, result.mfu))
    return tuple(out)


def ettr_series(ev: Evaluation, points: int = ETTR_POINTS) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(checkpoint intervals in minutes, ETTR at each), log-spaced around the optimum."""
    r = ev.reliability
    if r.mtbi_hours is None:  # nothing can fail: no curve to draw
        return (), ()
    optimum = r.checkpoint_interval_min if r.checkpoint_interval_min else r.mtbi_hours * 6
    upper = max(optimum * 6, 10.0)
    lower = max(optimum / 20, 0.05)
    intervals = [lower * (upper / lower) ** (i / (points - 1)) for i in range(points)]
    values = ettr_curve(r.mtbi_hours, r.checkpoint_blocking_s, r.restart_total_min, intervals)
    return tuple(intervals), tuple(float(v) for v in values)
