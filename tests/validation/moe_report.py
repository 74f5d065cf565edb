"""The "MoE training runs" section of docs/validation.md (issue 21)."""

from __future__ import annotations

from .markdown import hardware_cell, markdown_table
from .moe_suite import SECTION


def _layout(case) -> str:
    p = case.parallelism
    bits = [f"TP {p['tp']}", f"PP {p['pp']}", f"DP {p['dp']}", f"EP {p.get('ep', 1)}"]
    if p.get("expert_tp"):
        bits.append(f"expert TP {p['expert_tp']}")
    if p.get("cp", 1) > 1:
        bits.append(f"CP {p['cp']}")
    if p.get("virtual_stages", 1) > 1:
        bits.append(f"v {p['virtual_stages']}")
    bits.append(f"MBS {p['micro_batch']}, GBS {p['global_batch']}, seq {case.model['seq_len']}")
    bits.append(f"{case.precision}, {p['recompute']} recompute")
    if case.optimizer != "adamw":
        bits.append(f"{case.optimizer} optimizer")
    return ", ".join(bits)


def _short(note: str) -> str:
    # the schema's error names the field; the list of accepted keys that follows is noise here
    cut = note.find(" (expected one of")
    return note[:cut] + ")" if cut >= 0 else note


def summary(rows) -> dict:
    moe = [r for r in rows if r.section == SECTION]
    count = lambda s: sum(r.status == s for r in moe)  # noqa: E731
    return {"rows": len(moe), "computed": sum(r.error_value is not None for r in moe),
            "pass": count("pass"), "fail": count("FAIL"), "known_miss": count("known miss"),
            "report_only": count("report-only"), "not_modelled": count("not modelled"),
            "gated_policy": sum(r.extra["case"].policy in ("gated", "known-miss")
                                for r in moe if "case" in r.extra)}


def summary_line(rows) -> str:
    s = summary(rows)
    return (f"* MoE training (issue 21, section \"MoE training runs\"): {s['rows']} published "
            f"rows, {s['gated_policy']} of them gated by policy (tokens/s per GPU within "
            f"±10%); {s['computed']} computed ({s['pass']} pass, {s['fail']} failing, "
            f"{s['known_miss']} known miss, {s['report_only']} report-only), "
            f"{s['not_modelled']} not modelled (each says what the engine lacks for it).")


def render(rows) -> list[str]:
    moe = [r for r in rows if r.section == SECTION]
    out = ["## MoE training runs (issue 21)", "",
           "Published mixture-of-experts pre-training runs with their full layout "
           "(`docs/reference/moe-training-runs.md` lists each with its exact source). Each row "
           "is built with the run's whole model, layout and precision recipe as published; a "
           "row the training schema cannot hold is not modelled, with the schema's own error, "
           "and becomes a prediction once the schema accepts it (nothing is approximated to "
           "fit). Compared in tokens/s per GPU (±10%); published step = GBS x seq / "
           "(tokens/s/GPU x GPUs) (D).", ""]
    out += markdown_table(
        ["#", "Run", "Published", "Predicted", "Error", "Tolerance", "Status"],
        [[r.id, f"{r.group}: {r.title}", r.published, r.predicted, r.error, r.tolerance_text,
          r.status] for r in moe])
    out += ["", "### How each MoE run was built", ""]
    table = []
    for r in moe:
        case = r.extra.get("case")
        if case is None:
            table.append([r.id, r.title, "—", "—", r.source])
            continue
        table.append([r.id, hardware_cell(case), _layout(case), case.stack_name, r.source])
    out += markdown_table(["#", "Hardware (generated)", "Layout", "Software stack", "Source"],
                          table)
    notes: dict[tuple[str, str], list[str]] = {}
    for r in moe:
        # a passing row the memory model does not fit is not simply passing either: the run ran
        if r.note and (r.status != "pass" or "does not fit memory" in r.note):
            notes.setdefault((r.status, _short(r.note)), []).append(r.id)
    if notes:
        out += ["", "### MoE rows that are not simply passing", ""]
        out += [f"* **{', '.join(ids)}** ({status}): {note}."
                for (status, note), ids in notes.items()]
    return out
