"""Run the MoE training rows (moe_cases.py) through the public CLI path.

A row the training schema can hold is written and evaluated exactly as the dense training rows
(``suite.predict``) and compared in tokens/s per GPU; a row it cannot hold is "not modelled"
with the schema's own error as the reason.
"""

from __future__ import annotations

from pathlib import Path

from . import moe_cases as M
from .suite import RowResult, _status, predict

SECTION = "moe-training"


def moe_row(case, folder: Path) -> RowResult:
    published_tokens = case.parallelism["global_batch"] * case.model["seq_len"] / (
        case.published_step_s * _gpus(case))
    published = f"{published_tokens:,.0f} tok/s/GPU ({case.published_step_s:.2f} s step, D)"
    tol_text = f"tokens/s/GPU ±{100 * case.tolerance:.0f}%"
    gap = M.schema_gap(case)
    if gap is not None:
        return RowResult(SECTION, case.id, case.group, case.title, published, "—", "—", None,
                         case.tolerance, tol_text, "not-modelled", "not modelled",
                         f"not modelled: the schema cannot express the published run ({gap})",
                         f"{case.source} [{case.tag}]", extra={"case": case})
    pred = predict(case, folder)
    tokens = published_tokens * case.published_step_s / pred.step_s
    err = tokens / published_tokens - 1.0
    within = abs(err) <= case.tolerance + 1e-12
    note = case.reason
    if not within:
        shares = ", ".join(f"{k} {v / pred.step_s:.0%}" for k, v in pred.breakdown.items()
                           if v >= 0.02 * pred.step_s)
        note = (note + "; " if note else "") + f"predicted step: {shares}"
    if not pred.fits:
        note = (note + "; " if note else "") + f"does not fit memory ({pred.memory_gb:.0f} GB)"
    return RowResult(SECTION, case.id, case.group, case.title, published,
                     f"{tokens:,.0f} tok/s/GPU ({pred.step_s:.2f} s step)", f"{100 * err:+.1f}%",
                     err, case.tolerance, tol_text, case.policy, _status(case.policy, within),
                     note, f"{case.source} [{case.tag}]",
                     extra={"case": case, "pred": pred, "tokens_err": err})


def _gpus(case) -> int:
    p = case.parallelism
    return p["tp"] * p["pp"] * p["dp"] * p["cp"]


def run_moe(folder: Path, only: set[str] | None = None) -> list[RowResult]:
    out = [moe_row(case, folder) for case in M.MOE_CASES if not only or case.id in only]
    for row_id, title, published, source, tag, reason in M.MOE_NOT_MODELLED:
        if only and row_id not in only:
            continue
        out.append(RowResult(SECTION, row_id, "MoE training", title, published, "—", "—", None,
                             None, "—", "not-modelled", "not modelled", f"not modelled: {reason}",
                             f"{source} [{tag}]"))
    return out
