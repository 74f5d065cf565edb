"""Fit a workload preset chosen by name to the GPUs of a design.

A preset is a published run: its TP/PP/CP/EP and micro-batch say how the model is split, its DP
and global batch say how big the cluster was. Chosen for another design, the split is kept and
data parallelism grows or shrinks to fill the design, and the global batch grows or shrinks
with it so each replica keeps the preset's number of micro-batches per step (the pipeline stays
as full as in the published run, and every GPU does the same work per step as in it). A workload given as a file is never fitted (the CLI and the
Workload tab only call this for presets).
"""

from __future__ import annotations

from dataclasses import replace
from math import gcd

from core.workload import Parallelism, PresetFit, Workload, with_parallelism


def _kept_split(par: Parallelism) -> str:
    """The parts of the layout the fit never changes, as the note names them."""
    parts = [f"TP {par.tp}", f"PP {par.pp}"]
    parts += [f"{name} {value}" for name, value in (("CP", par.cp), ("EP", par.ep)) if value > 1]
    return ", ".join(parts)


def fit_to_design(workload: Workload, gpus: int, preset: str | None = None) -> tuple[Workload, str]:
    """``workload`` (a preset) with DP and the global batch set to fill ``gpus``, and the
    sentence that tells the user what changed.

    - TP, PP, CP, EP, micro-batch, virtual stages, ZeRO and recompute are kept.
    - DP is the largest that fits: ``gpus // (TP x PP x CP)``, rounded down to a multiple of
      ``EP / gcd(EP, CP)`` because experts are sharded over DP x CP (``(DP x CP) % EP == 0``).
    - The global batch is ``DP x micro_batch x m``, where ``m`` is the preset's micro-batches per
      replica (its global batch / (DP x micro_batch), at least 1); with interleaved stages
      Megatron needs ``m`` to be a multiple of PP, so it is rounded up to one.
    - A design smaller than one replica (or an "auto" layout, which the search already fits)
      keeps the workload as written and the note says why.

    The fitted workload carries a ``PresetFit`` record (preset name, design GPUs, the preset's
    own layout, the note) for the project file and the evaluation JSON; an unchanged one has none.
    """
    name = preset or workload.name
    par = workload.parallelism
    if not isinstance(par, Parallelism):
        return workload, f"Preset {workload.name} searches its layout for the design at every evaluation"
    model_parallel = par.tp * par.pp * par.cp
    dp_step = par.ep // gcd(par.ep, par.cp)
    smallest = model_parallel * dp_step
    if gpus < smallest:
        ep_part = f" x DP {dp_step} for EP {par.ep}" if dp_step > 1 else ""
        return workload, (
            f"Preset {workload.name} needs at least {smallest:,} GPUs (TP {par.tp} x PP {par.pp} x CP {par.cp}"
            f"{ep_part}) and the design has {gpus:,}: kept as written, the job does not fit")
    dp = gpus // model_parallel // dp_step * dp_step
    interleaved = par.virtual_stages > 1
    microbatches = max(1, par.global_batch // (par.dp * par.micro_batch))
    if interleaved:
        microbatches = -(-microbatches // par.pp) * par.pp
    global_batch = dp * par.micro_batch * microbatches
    if (dp, global_batch) == (par.dp, par.global_batch):
        return workload, (f"Preset {workload.name} already fills the design's {gpus:,} GPUs "
                          f"as written (DP {dp:,}, {_kept_split(par)})")
    fitted = with_parallelism(workload, dp=dp, global_batch=global_batch)
    if global_batch == par.global_batch:
        batch = f"global batch {global_batch:,} sequences kept"
    else:
        batch = (f"global batch {par.global_batch:,} -> {global_batch:,} sequences "
                 f"({microbatches} micro-batch{'es' if microbatches > 1 else ''} of "
                 f"{par.micro_batch} per replica, as in the preset)")
    note = f"Preset {workload.name} fitted to {gpus:,} GPUs: DP {par.dp:,} -> {dp:,}, {batch}; {_kept_split(par)} kept"
    idle = gpus - dp * model_parallel
    if idle:
        note += f"; {idle:,} GPUs stay idle"
    if microbatches < par.pp:
        plural = "es" if microbatches > 1 else ""
        note += (f"; only {microbatches} micro-batch{plural} per replica for {par.pp} pipeline stages: expect a "
                 f"large pipeline bubble (a global batch of {dp * par.micro_batch * par.pp:,} gives one per stage)")
    fit = PresetFit(preset=name, design_gpus=gpus, preset_parallelism=par, note=note)
    return replace(fitted, preset_fit=fit), note
