"""Run the published-peak-memory rows (memory_cases.py) through the public CLI path and the
"Peak memory per GPU" section of docs/validation.md.

Each row is written as a project (the run's model, layout and precision on its generated
hardware, its stack as performance assumptions) and evaluated with ``cluster-designer evaluate
--format json``; the prediction is ``performance.memory_gb`` of that JSON: its total less the
framework term, which torch's allocated count does not see (memory_cases.py).
"""

from __future__ import annotations

from pathlib import Path

from core.analysis.performance import PerformanceAssumptions
from core.assumptions import Assumptions
from core.catalog import default_catalog
from core.project import save_project
from core.workload import workload_from_dict

from . import memory_cases as MC
from .markdown import hardware_cell, markdown_table
from .moe_suite import SECTION as MOE_SECTION
from .suite import RowResult, _status, build_design, evaluate_project

SECTION = "memory"


def write_memory_project(case: MC.MemoryCase, folder: Path) -> Path:
    catalog = default_catalog()
    design = build_design(case.hardware, catalog)
    design.name = f"validation row {case.id}: {case.title}"
    design.workload = workload_from_dict({
        "name": f"{case.title} (peak memory row {case.id})",
        "model": case.model, "parallelism": case.parallelism, "precision": case.precision})
    design.assumptions = Assumptions(performance=PerformanceAssumptions(**case.stack))
    path = folder / f"memory-{case.id}.json"
    save_project(design, path)
    return path


def memory_row(case: MC.MemoryCase, folder: Path) -> RowResult:
    memory = evaluate_project(write_memory_project(case, folder))["performance"]["memory_gb"]
    allocated = memory["total_gb"] - memory["framework_gb"]
    err = allocated / case.published_gb - 1.0
    within = abs(err) <= case.tolerance + 1e-12
    parts = (f"weights {memory['weights_gb']:.1f}, gradients {memory['gradients_gb']:.1f}, "
             f"optimizer {memory['optimizer_gb']:.1f}, activations "
             f"{memory['activations_gb']:.1f} ({memory['inflight_microbatches']:.3g} "
             f"micro-batches in flight, {memory['stage']} stage), logits "
             f"{memory['logits_gb']:.1f}, workspace {memory['workspace_gb']:.1f}")
    return RowResult(SECTION, case.id, "Peak memory per GPU", case.title,
                     f"{case.published_gb:.2f} GB", f"{allocated:.2f} GB ({parts})",
                     f"{100 * err:+.1f}%", err, case.tolerance,
                     f"±{100 * case.tolerance:.0f}%", case.policy, _status(case.policy, within),
                     case.reason, f"{case.source} [{case.tag}]",
                     extra={"case": case, "memory": memory, "memory_err": err})


def run_memory(folder: Path, only: set[str] | None = None) -> list[RowResult]:
    return [memory_row(case, folder) for case in MC.MEMORY_CASES
            if not only or case.id in only]


def runs_over_memory(rows) -> list[str]:
    """Ids of the computed training rows (dense and MoE) our memory model does not fit."""
    return [r.id for r in rows if r.section in ("performance", MOE_SECTION)
            and "pred" in r.extra and not r.extra["pred"].fits]


def summary_line(rows) -> str:
    mem = [r for r in rows if r.section == SECTION]
    passing = sum(r.status == "pass" for r in mem)
    worst = max((abs(r.error_value) for r in mem if r.error_value is not None), default=0.0)
    over = runs_over_memory(rows)
    ran = sum(r.section in ("performance", MOE_SECTION) and "pred" in r.extra for r in rows)
    return (f"* Peak memory per GPU (issue 21, section \"Peak memory per GPU\"): {len(mem)} "
            f"published peaks with their full configuration, {passing} within ±10% (largest "
            f"error {100 * worst:.1f}%); {ran - len(over)} of the {ran} computed training runs "
            f"fit their GPU with their published settings"
            + (f", not {', '.join(over)} (known memory misses, each with its reason)"
               if over else "") + ".")


def render(rows) -> list[str]:
    mem = [r for r in rows if r.section == SECTION]
    out = ["## Peak memory per GPU (issue 21)", "",
           "Runs whose peak memory per GPU was measured and published with their complete "
           "configuration: Megatron-LM's functional tests, whose golden values record torch's "
           "`mem-max-allocated-bytes` per iteration on one DGX H100. The engine's total less "
           "its framework term (CUDA context, NCCL buffers, fragmentation: outside torch's "
           "allocated count) is compared within ±10%. GB = 1e9 bytes.", ""]
    out += markdown_table(
        ["#", "Run", "Published", "Predicted", "Error", "Tolerance", "Status"],
        [[r.id, r.title, r.published, r.predicted, r.error, r.tolerance_text, r.status]
         for r in mem])
    out += ["", "### How each memory row was built", ""]
    out += markdown_table(
        ["#", "Hardware (generated)", "Software stack", "Source"],
        [[r.id, hardware_cell(r.extra["case"]), r.extra["case"].stack_name, r.source]
         for r in mem])
    return out
