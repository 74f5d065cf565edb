"""The "Serving results" section of docs/validation.md (report.py renders the rest)."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from unittest import mock

from core.analysis.serving_phase import PhaseModel
from core.assumptions.inference import InferenceAssumptions

from . import inference_cases as IC
from .markdown import hardware_cell, markdown_table
from .serving_suite import WHAT, predict_serving, serving_summary
from .suite import RowResult

# The MoE serving terms of issue 21 (serving-model.md §1b, §3), each with what turns it off on
# a row: the table below evaluates every mixture-of-experts row without each term in turn, so
# that what each term moved is shown, not asserted.
_TERMS = (
    ("the busiest EP rank (chance)",
     lambda c: _is_ep(c) and c.options.get("expert_placement", {}).get("load_imbalance") is None,
     lambda o: {**o, "expert_placement": {**o.get("expert_placement", {}), "load_imbalance": 1.0}}),
    ("unaligned attention-DP prefills", lambda c: _is_adp(c) and not c.options.get("attention_dp_balance"),
     lambda o: {**o, "attention_dp_balance": True}),
    ("MLA at BF16 on Hopper", lambda c: "attention_precision" in c.options,
     lambda o: {k: v for k, v in o.items() if k != "attention_precision"}),
    ("MTP drafts", lambda c: "speculative" in c.options,
     lambda o: {k: v for k, v in o.items() if k != "speculative"}),
)

def summary_line(rows: list[RowResult]) -> str:
    s = serving_summary(rows)
    return (f"* Serving (issue 15, section \"Serving results\"): {s['rows']} rows, {s['computed']} "
            f"computed, {s['gated']} gated ({s['pass']} pass, {s['known_miss']} known miss, "
            f"{s['fail']} failing); tokens/s per GPU within ±{100 * IC.TOLERANCE:.0f}% on every "
            f"passing gated row, mean absolute error **{100 * s['passing_mean']:.1f}%** over them "
            f"({s['pass']} rows), {100 * s['gated_mean']:.0f}% over all gated rows with the known "
            "misses.")


def _layout(d: dict) -> str:
    bits = [f"TP {d['tp']}"] + [f"{k.upper()} {d[k]}" for k in ("pp", "ep") if d[k] > 1]
    return ", ".join(bits) + f", DP {d['dp']}, batch {_batch(d['batch'])}"


def _batch(batch: int) -> str:
    return "KV maximum" if batch >= IC.KV_MAXIMUM else f"{batch:,}"


def _deployment(case: IC.ServingCase) -> str:
    d = case.deployment
    if d["mode"] == "disaggregated":
        return f"prefill {_layout(d['prefill'])}; decode {_layout(d['decode'])}"
    return _layout(d)


def _model(case: IC.ServingCase) -> str:
    return f"{case.model_name}; weights {case.precision.upper()}, KV {case.kv_precision.upper()}"


def _requests(case: IC.ServingCase) -> str:
    text = f"{case.input_tokens:,} / {case.output_tokens:,}"
    return text + (f" ({len(case.request_mix)} classes: the dataset's spread)" if case.request_mix else "")


def _is_ep(case: IC.ServingCase) -> bool:
    d = case.deployment
    phases = (d["prefill"], d["decode"]) if d["mode"] == "disaggregated" else (d,)
    return case.model["moe"]["experts"] > 0 and any(p["ep"] > 1 for p in phases)


def _is_adp(case: IC.ServingCase) -> bool:
    d = case.deployment
    return d["mode"] == "aggregated" and _is_ep(case) and d["ep"] > d["tp"]


def _fine_grained(case: IC.ServingCase) -> bool:
    moe = case.model["moe"]
    return moe["experts"] > 0 and (moe.get("expert_ffn_hidden") or case.model["ffn_hidden"]) < case.model["hidden"]


def _without_serial_experts(case: IC.ServingCase, folder: Path) -> str:
    """The row with its fine-grained experts inside the step's one roofline (their read and
    math overlapped with the rest, as before issue 21's change): a model law, not a workload
    option, so it is turned off in the model for this evaluation only."""
    if not _fine_grained(case):
        return "—"
    with mock.patch.object(PhaseModel, "_fine_grained_experts", False):
        value = predict_serving(case, folder).value
    return f"{100 * (value / case.published - 1.0):+.1f}%"


def _terms_table(computed: list[RowResult]) -> list[list[str]]:
    """Each MoE row's error with every term, then without each term that applies to it."""
    table = []
    with tempfile.TemporaryDirectory() as folder:
        for r in computed:
            case = r.extra["case"]
            cells = [_without_serial_experts(case, Path(folder))]
            for _, applies, off in _TERMS:
                if not applies(case):
                    cells.append("—")
                    continue
                value = predict_serving(dataclasses.replace(case, options=off(case.options)), Path(folder)).value
                cells.append(f"{100 * (value / case.published - 1.0):+.1f}%")
            if any(cell != "—" for cell in cells):
                table.append([r.id, r.error, *cells, r.status])
    return table


def _steps(r: RowResult) -> list[str]:
    inf = r.extra["pred"].inference
    d, p = inf["decode"], inf["prefill"]
    share = inf["prefill_time_fraction"]
    return [r.id, f"{r.extra['pred'].batch:,}", _parts_ms(d), d["bound"], _parts_ms(p),
            p["bound"], "—" if share is None else f"{share:.2f}", f"{inf['ttft_ms']:,.0f}",
            f"{inf['tpot_ms']:.1f}"]


def _parts_ms(step: dict) -> str:
    """A stage step's compute / HBM / communication / fixed milliseconds."""
    return " / ".join(f"{1e3 * step[k]:.1f}" for k in ("compute_s", "memory_s", "communication_s", "fixed_s"))


def render(rows: list[RowResult]) -> list[str]:
    serving = [r for r in rows if r.section == "serving"]
    computed = [r for r in serving if "case" in r.extra]
    a = InferenceAssumptions()
    s = serving_summary(rows)
    calibration = [c.id for c in IC.ALL_SERVING_CASES if c.calibration]
    err = {r.id: r.error for r in computed}
    out = [
        "## Serving results (inference, issue 15)",
        "",
        "Published LLM serving results on hardware in the catalog (rows and per-GPU arithmetic: "
        "`docs/reference/serving-results.md`, whose row numbers # are given). Every row is a "
        "project with the run's real server or rack (`generate supernode` / `fat-tree`), an "
        "inference workload with the run's model, weight and KV-cache precision, mean request "
        "lengths and the deployment as published (layout and batch per replica), evaluated with "
        "`python -m designer.cli evaluate P --format json` in-process. Each row compares one "
        "figure per GPU of the deployment (column \"Compares\"); a gated row passes within "
        f"±{100 * IC.TOLERANCE:.0f}% (the issue's goal). MLPerf Offline and TensorRT-LLM "
        "max-throughput rows compare served output tokens/s per GPU (prefill counted) at the "
        "run's batch, or at what the KV cache holds when the batch is not published; Server and "
        "Interactive rows the same figure at the largest batch whose TTFT and TPOT at load meet "
        "the run's limits (ours are means, MLPerf's limits bind the 99th percentile, so these "
        "lean high); aiconfigurator rows tokens/s at the measured concurrency, which TPOT at "
        "load sets (TTFT shown, not gated); the disaggregated blogs one phase's tokens/s. Rows "
        "are defined in `tests/validation/inference_cases.py`.",
        "",
        f"* {s['rows']} rows: {s['computed']} computed ({s['gated']} gated: {s['pass']} pass, "
        f"{s['known_miss']} known miss, {s['fail']} failing; the rest report-only), "
        f"{s['rows'] - s['computed']} not modelled.",
        f"* Mean absolute error in tokens/s per GPU: {100 * s['passing_mean']:.1f}% over the "
        f"{s['pass']} passing gated rows ({100 * s['passing_predicted_mean']:.1f}% over the "
        f"{s['passing_predicted']} of them that are predictions, not calibration rows); "
        f"{100 * s['gated_mean']:.0f}% over all {s['gated']} gated rows, the known misses included.",
        "",
        "### Calibration (serving)",
        "",
        "`python -m tests.validation.calibrate_serving` re-derives them; every other row is a "
        "prediction.",
        "",
        f"* `prefill_compute_efficiency` **{a.prefill_compute_efficiency}**, "
        f"`decode_compute_efficiency` **{a.decode_compute_efficiency}** (fractions of the dense "
        "peak realised over a step: the linear layers at the weights' precision, attention at "
        f"the KV cache's) and `fixed_us_per_layer` **{a.fixed_us_per_layer:g} us** (every layer "
        "of every step: kernel launches and tails, syncs, the small kernels around the GEMMs), "
        "together: least squares in log output tokens/s per GPU over six runs, "
        + ", ".join(calibration) + " (P): three H100 runs at large batches set the "
        "efficiencies, three Llama 3.1 70B runs at concurrency 4 (H100 vLLM, H200 and B200 "
        "TensorRT-LLM), where the weights' read and the fixed cost are the step, set the fixed "
        "cost. They were 0.473 and 0.439 while the KV cache's room counted the spec sheet's GB as "
        "10^9 bytes, and 0.423 and 0.415 fitted on the three H100 runs alone, "
        "before the fixed cost, MLA's absorbed decode and attention at the KV cache's "
        "precision entered the model; estimates of 0.6 and 0.5 before any data.",
        f"* `hbm_efficiency` **{a.hbm_efficiency}** stays the stated estimate: fitting it with "
        "the three above, adding the HBM-bound Mixtral 8x7B Offline row, gives 0.795.",
        "* No fitted per-accelerator or per-precision factor: the H200, Blackwell (FP4) and "
        "AMD rows are predictions with the efficiencies the H100 runs set, at each "
        "accelerator's measured kernel rates (below).",
        "* Measured, not fitted: FP4 linear layers run at the FP4 peak x the best NVFP4 GEMM's "
        "share of it over the best FP8 GEMM's share of the FP8 peak, from NVIDIA's own "
        "measurements of TensorRT-LLM's GEMM kernels (`fp4_over_fp8_gemm_share_by_accelerator`: "
        "B200 0.722, GB200 0.744, B300 0.570, GB300 0.571; aiconfigurator 0.12 op data, P): "
        "every Blackwell FP4 row was over-predicted before (+9..+153%); now MLPerf Llama 2 70B "
        f"on B200 {err['MLP51-L2-70B-B200x8-offline']}, TensorRT-LLM Llama 3.1 405B on B200 "
        f"{err['TRT-L31-405B-B200-TP4-1k1k']}, Llama 3.3 70B on GB200 "
        f"{err['TRT-L33-70B-GB200-TP1-1k1k']}. Fine-grained experts (FFN narrower than the hidden "
        "size) do their grouped GEMMs' math at the FP8 rate with FP4 weights (NVIDIA's MoE op: "
        "0.96-1.03x the FP8 op's time from 64 tokens per expert on, 0.67-0.73x at up to 4): "
        f"DeepSeek-R1 NVFP4 on B200 {err['TRT-DSR1-B200-DEP4-1k1k']}, at 896 per rank "
        f"{err['TRT-BP-DSR1-B200-DEP8-b896']}.",
        "* Measured, not fitted: the KV cache's room is counted in the bytes the GPU holds "
        "(`hbm_capacity_gb`: nvidia-smi's memory.total, 81,559 MiB = 85.5 GB on an \"80GB\" "
        "H100; the spec sheet's figure read as GiB where no driver total is catalogued), not the "
        "spec sheet's number as 10^9 bytes, which left every GPU 7% short: the batches at the KV "
        "maximum grow by up to 15%, the throughput of the rows they bind by up to 4%.",
        "* Measured, not fitted: an accelerator whose largest GEMMs hold a lower clock realises "
        "the efficiencies x its measured GEMM ceiling / the H100's (`gemm_ceiling_by_accelerator`: "
        "H100 0.698, Azure cuBLASLt; MI300X 0.487 at 1,230 MHz and MI325X 0.581 at 1,464 MHz, "
        "AMD's max-achievable-FLOPs bench, P). Same die, the 750 W MI300X holds 19% less clock "
        "than the 1,000 W MI325X: MI300X from +35..+75% to "
        f"{err['MLP51-L2-70B-MI300Xx8-offline']} (v5.1) and {err['MLP41-L2-70B-MI300Xx8-offline']} / "
        f"{err['MLP41-L2-70B-MI300Xx8-server']} (v4.1), MI325X to "
        f"{err['MLP51-L2-70B-MI325Xx8-offline']} / {err['MLP51-L2-70B-MI325Xx8-server']}.",
        "",
    ]
    table = []
    for r in serving:
        case = r.extra.get("case")
        if case is None:
            continue
        mark = " (calibration)" if case.calibration else ""
        table.append([f"{r.id}{mark}", f"{r.group}: {r.title}", WHAT[case.compare], r.published,
                      r.predicted, r.error, r.tolerance_text, r.status])
    out += markdown_table(["#", "Run", "Compares", "Published (per GPU)", "Predicted", "Error",
                   "Tolerance", "Status"], table)
    out += ["", "### How each serving row was built", ""]
    out += markdown_table(
        ["#", "Hardware (generated)", "Model and precision", "Requests (mean in / out)",
         "Deployment per replica", "Software as run", "Tags", "Source"],
        [[r.id, hardware_cell(c), _model(c), _requests(c),
          _deployment(c), c.software, c.tag, c.source]
         for r in computed for c in (r.extra["case"],)])
    out += ["", "### Predicted steps (ms per stage step of one replica: decode, one micro-batch "
            "at the row's batch (the whole batch without pipeline stages); prefill, one mean "
            "prompt or the prefill pool's step. Compute, HBM and a KV fetch overlap, the "
            "communication and the fixed cost per layer are added; fine-grained experts' read "
            "+ math is in the part that binds)", ""]
    out += markdown_table(["#", "Batch", "Decode compute / HBM / comm / fixed", "Decode bound",
                   "Prefill compute / HBM / comm / fixed", "Prefill bound", "Prefill share of time",
                   "TTFT ms", "TPOT ms"],
                  [_steps(r) for r in computed])
    out += ["", "### What the mixture-of-experts terms move (issue 21; serving-model.md §1b, §3)", "",
            "Every mixture-of-experts row evaluated again without each term that applies to it "
            "(— where it does not): fine-grained experts' grouped GEMMs costing their weights' "
            "read plus their math (serving-model.md §1; off: overlapped with the rest of the "
            "step in its one roofline, as coarse experts are), the busiest EP rank's share by chance (off: "
            "`load_imbalance` 1.0), the wait of attention-DP ranks for the one prefilling most "
            "when the engine does not align their prefills (off: `attention_dp_balance`), "
            "attention at the engine's precision (MLA decode in BF16 on Hopper; off: at the KV "
            "cache's), MTP drafts (off: no speculative decoding). A status that changed with "
            "them shows in the last column against the error without the term.", ""]
    out += markdown_table(["#", "Error (all terms)", "without the fine-grained experts' serial read + math",
                           *(f"without {name}" for name, _, _ in _TERMS), "Status"], _terms_table(computed))
    notes: dict[tuple[str, str], list[str]] = {}
    for r in serving:
        if r.note and r.status != "pass":
            notes.setdefault((r.status, r.note), []).append(r.id)
    out += ["", "### Serving rows that are not simply passing", ""]
    out += [f"* **{', '.join(ids)}** ({status}): {note}." for (status, note), ids in notes.items()]
    return out
