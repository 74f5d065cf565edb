"""Run every serving validation row (inference_cases.py) through the public path.

Each row is a project written with ``core.project.save_project`` (the run's server or rack from
the generators, an inference workload with the run's model, precision, request shape and
deployment) and evaluated with ``python -m designer.cli evaluate P --format json`` in-process
(``suite.evaluate_project``); the row's figure is read from the evaluation's ``inference``
section. A server row evaluates the deployment at several batches to find the largest one whose
latencies stay within the run's limits (a bisection, about a dozen evaluations).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.assumptions.inference import InferenceAssumptions
from core.assumptions import Assumptions
from core.catalog import default_catalog
from core.inference_workload import inference_workload_from_dict
from core.project import save_project

from . import inference_cases as IC
from .suite import RowResult, _status, build_design, evaluate_project

# the evaluation key each kind of row compares
_KEYS = {IC.OFFLINE: "output_tokens_per_s_per_gpu", IC.SERVER: "output_tokens_per_s_per_gpu",
         IC.CONCURRENCY: "output_tokens_per_s_per_gpu", IC.PREFILL: "prefill_tokens_per_s_per_gpu",
         IC.DECODE: "decode_tokens_per_s_per_gpu"}
WHAT = {IC.OFFLINE: "output tok/s/GPU at the run's batch (prefill counted)",
        IC.SERVER: "output tok/s/GPU at the largest batch within the latency limits (means)",
        IC.CONCURRENCY: "output tok/s/GPU at the measured concurrency (TPOT at load sets it)",
        IC.PREFILL: "prefill (input) tok/s/GPU of the prefill pool",
        IC.DECODE: "decode tok/s/GPU at the batch and context"}


def _workload(case: IC.ServingCase, batch: int | None) -> dict:
    deployment = dict(case.deployment)
    if batch is not None:  # aggregated rows only: a server row's batch under search
        deployment["batch"] = batch
    return {"kind": "inference", "name": f"{case.title} (serving row {case.id})",
            "model": case.model, "precision": case.precision,
            "kv_cache_precision": case.kv_precision,
            "requests": _requests(case),
            "slo": {"ttft_ms": case.limits_ms[0], "tpot_ms": case.limits_ms[1]},
            "deployment": deployment, **case.options}


def _requests(case: IC.ServingCase) -> dict:
    """The row's request classes (its dataset's spread), else its one mean request."""
    if case.request_mix:
        return {"mix": [{"input_tokens": i, "output_tokens": o, "share": w} for i, o, w in case.request_mix]}
    return {"input_tokens": case.input_tokens, "output_tokens": case.output_tokens}


def write_serving_project(case: IC.ServingCase, folder: Path, assumptions: dict | None = None,
                          batch: int | None = None) -> Path:
    design = build_design(case.hardware, default_catalog())
    design.name = f"serving validation row {case.id}: {case.title}"
    design.workload = inference_workload_from_dict(_workload(case, batch))
    design.assumptions = Assumptions(inference=InferenceAssumptions(**(assumptions or {})))
    path = folder / f"serving-{case.id}{'' if batch is None else f'-b{batch}'}.json"
    save_project(design, path)
    return path


def evaluate_serving(case: IC.ServingCase, folder: Path, assumptions: dict | None = None,
                     batch: int | None = None) -> dict:
    """The evaluation's ``inference`` section for the row (at ``batch`` if given)."""
    inference = evaluate_project(write_serving_project(case, folder, assumptions, batch))["inference"]
    if not inference["runs"]:
        reasons = "; ".join(r["message"] for r in inference["cannot_run"])
        raise RuntimeError(f"serving row {case.id}: the deployment cannot run: {reasons}")
    return inference


@dataclass
class ServingPrediction:
    value: float  # tokens/s per GPU in the row's unit
    batch: int  # decode batch per replica the figure is at
    inference: dict  # the evaluation's inference section at that batch


def _server_point(case: IC.ServingCase, folder: Path, assumptions: dict | None) -> dict:
    """The deployment at the largest batch (up to the engine's, capped by the KV cache) whose
    TTFT and TPOT at load meet the run's limits; the batch-1 point if none does."""
    top = evaluate_serving(case, folder, assumptions)
    if top["meets_slo"]:
        return top
    low, high = 1, top["batch"]
    best = evaluate_serving(case, folder, assumptions, 1)
    if not best["meets_slo"]:
        return best
    while high - low > 1:
        mid = (low + high) // 2
        point = evaluate_serving(case, folder, assumptions, mid)
        if point["meets_slo"]:
            low, best = mid, point
        else:
            high = mid
    return best


def predict_serving(case: IC.ServingCase, folder: Path,
                    assumptions: dict | None = None) -> ServingPrediction:
    inference = (_server_point(case, folder, assumptions) if case.compare == IC.SERVER
                 else evaluate_serving(case, folder, assumptions))
    batch = (inference["disaggregated"]["decode"]["batch"] if inference["disaggregated"]
             else inference["batch"])
    return ServingPrediction(inference[_KEYS[case.compare]], batch, inference)


def _predicted_text(case: IC.ServingCase, pred: ServingPrediction) -> str:
    inf = pred.inference
    text = f"{pred.value:,.0f} at batch {pred.batch:,}"
    if case.compare in (IC.SERVER, IC.CONCURRENCY):
        text += f" (TTFT {inf['ttft_ms']:,.0f} ms, TPOT {inf['tpot_ms']:.1f} ms)"
    return text


def serving_row(case: IC.ServingCase, pred: ServingPrediction) -> RowResult:
    err = pred.value / case.published - 1.0
    gated = case.policy in ("gated", "known-miss")
    within = abs(err) <= case.tolerance + 1e-12
    notes = [case.reason] if case.reason else []
    if case.compare == IC.CONCURRENCY:
        notes.append(f"TPOT {_ms_error(pred, 'tpot_ms', case.published_tpot_ms)}; TTFT "
                     f"{_ms_error(pred, 'ttft_ms', case.published_ttft_ms)}, not gated (the "
                     "measured TTFT holds prompts queued behind each other)")
    return RowResult(
        "serving", case.id, case.group, case.title, case.published_text, _predicted_text(case, pred),
        f"{100 * err:+.1f}%", err if gated else None, case.tolerance if gated else None,
        f"±{100 * case.tolerance:.0f}%" if gated else "report-only", case.policy,
        _status(case.policy, within if gated else None), "; ".join(notes),
        f"{case.source} [{case.tag}]", extra={"case": case, "pred": pred, "err": err})


def _ms_error(pred: ServingPrediction, key: str, published: float | None) -> str:
    value = pred.inference[key]
    return f"{value:,.1f} ms vs {published:,.1f} ({100 * (value / published - 1):+.0f}%)"


def run_serving(folder: Path, assumptions: dict | None = None,
                only: set[str] | None = None) -> list[RowResult]:
    out = [serving_row(case, predict_serving(case, folder, assumptions))
           for case in IC.ALL_SERVING_CASES if only is None or case.id in only]
    if only is None:
        out += [RowResult("serving", row_id, "serving-results.md " + number, title, published, "—",
                          "—", None, None, "—", "not-modelled", "not modelled",
                          why, "docs/reference/serving-results.md")
                for row_id, title, published, why, number in IC.SERVING_NOT_MODELLED]
    return out


def serving_summary(rows: list[RowResult]) -> dict:
    """Counts and mean absolute tokens/s errors of the serving rows: over the gated rows that
    pass (and those of them that are predictions, not calibration rows) and over every gated
    row, the known misses included."""
    computed = [r for r in rows if r.section == "serving" and "err" in r.extra]
    gated = [r for r in computed if r.policy in ("gated", "known-miss")]
    passing = [r for r in gated if r.status == "pass"]
    predicted = [r for r in passing if not r.extra["case"].calibration]
    mean = lambda rs: sum(abs(r.extra["err"]) for r in rs) / len(rs) if rs else 0.0  # noqa: E731
    return {"rows": sum(r.section == "serving" for r in rows), "computed": len(computed),
            "gated": len(gated), "gated_mean": mean(gated), "pass": len(passing),
            "passing_mean": mean(passing), "passing_predicted": len(predicted),
            "passing_predicted_mean": mean(predicted),
            "known_miss": sum(r.status == "known miss" for r in gated),
            "fail": sum(r.status == "FAIL" for r in gated)}
