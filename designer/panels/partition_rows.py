"""The rows the Overview, Power and Cost panels add for a design with several workloads: one per
partition (core/partitions.py: the main workload's, then each service's), with its workload's
headline figure, its share of the power, or its price per GPU-hour and per million output
tokens. A design without partitions gets none of them (``Evaluation.partitions`` is None).

A partition that cannot be resolved (no GPUs: an unknown block, more GPUs than there are) has
no figures: its row says why, in core's words.
"""

from __future__ import annotations

from typing import Any

from designer.common.format import money, num, pct, power
from designer.panels.serving_text import DOES_NOT_FIT

SECTION = "Partitions"


def unique_label(label: str, taken: set[str]) -> str:
    """``label``, or "<label> (partition)" when a row of the panel already has it (a panel's
    rows are found by label)."""
    out = label if label not in taken else f"{label} (partition)"
    taken.add(out)
    return out


def inference_headline(inference: Any) -> str:
    """"TTFT 297 ms · TPOT 33.0 ms · 3,253 tokens/s per GPU" (or why there are no figures)."""
    if not inference.runs:
        first = inference.cannot_run[0].message if inference.cannot_run else ""
        return f"{DOES_NOT_FIT}: {first}" if first else DOES_NOT_FIT
    mark = "" if inference.meets_slo else " (misses the SLOs)"
    return (f"TTFT {num(inference.ttft_ms, 0, 'ms')} · TPOT {num(inference.tpot_ms, 1, 'ms')} · "
            f"{num(inference.decode_tokens_per_s_per_gpu, 0)} tokens/s per GPU{mark}")


def training_headline(ev: Any) -> str:
    """"MFU 47.8 % · 162.0 days" (or why it does not run)."""
    if ev.cannot_run:
        return f"{DOES_NOT_FIT}: {ev.cannot_run[0].message}"
    perf = ev.performance
    if perf is None:
        return "not evaluated"
    return f"MFU {pct(perf.mfu)} · {num(perf.training_days, 1, 'days')}"


def _inference_of(ev: Any) -> dict[str, Any]:
    """Partition name -> the serving result of the inference workload on it."""
    out = {s.partition.name: s.inference for s in ev.services}
    if ev.inference is not None and ev.partitions.main is not None:
        out[ev.partitions.main.name] = ev.inference
    return out


def _headline(ev: Any, view: Any, served: dict[str, Any]) -> str:
    if view.name in served:
        return inference_headline(served[view.name])
    if view.kind == "training" and view is ev.partitions.main:
        return training_headline(ev)
    return "no workload runs on it"


def _problem(view: Any) -> str:
    return "; ".join(d.message for d in view.problems)


def overview_rows(ev: Any, taken: set[str]) -> list[tuple]:
    """Name, kind, workload, GPUs and accelerator, and the headline figure of each partition."""
    if ev.partitions is None:
        return []
    served = _inference_of(ev)
    rows: list[tuple] = [(SECTION, None)]
    for view in ev.partitions.all:
        what = f"{view.workload_name} ({view.kind})" if view.workload_name else "no workload"
        if view.fabric is None:
            text, tip = f"{what}\n✗ no GPUs: {_problem(view)}", _problem(view)
        else:
            text = f"{what}, {view.gpus:,} {view.fabric.accelerator.id}\n{_headline(ev, view, served)}"
            tip = f"Partition {view.name}: {view.describe()}"
        rows.append((unique_label(view.name, taken), text, tip))
    return rows


def power_rows(ev: Any, taken: set[str]) -> list[tuple]:
    """Each partition's IT and facility power: its own compute and a GPU share of the rest."""
    if ev.partitions is None:
        return []
    rows: list[tuple] = [(SECTION, None)]
    for view in ev.partitions.all:
        if view.it_kw is None:
            text, tip = "— (no GPUs)", _problem(view)
        else:
            text = f"IT {power(view.it_kw)} · facility {power(view.facility_kw)}"
            tip = (f"Partition {view.name} ({view.describe()}): its own compute nodes, and a GPU share of "
                   "the network, storage and facility the partitions share")
        rows.append((unique_label(view.name, taken), text, tip))
    return rows


def cost_rows(ev: Any, taken: set[str]) -> list[tuple]:
    """Each partition's price per GPU-hour, and per million output tokens where it serves."""
    if ev.partitions is None:
        return []
    served = _inference_of(ev)
    rows: list[tuple] = [(SECTION, None)]
    for view in ev.partitions.all:
        if view.fabric is None:
            rows.append((unique_label(view.name, taken), "— (no GPUs)", _problem(view)))
            continue
        text = f"{money(view.usd_per_gpu_hour)} per GPU-hour"
        inference = served.get(view.name)
        if inference is not None:
            text += f" · {output_tokens_price(inference)} per million output tokens"
        tip = (f"Partition {view.name} ({view.describe()}): its share of the TCO (its own compute, a GPU "
               "share of what the partitions share) over its GPU-hours")
        rows.append((unique_label(view.name, taken), text, tip))
    return rows


def output_tokens_price(inference: Any) -> str:
    """$ per million output tokens of a served workload ("does not fit" when it is not)."""
    if not inference.runs:
        return DOES_NOT_FIT
    return money(inference.usd_per_million_output_tokens)
