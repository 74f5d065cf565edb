"""Our step-time / MFU prediction next to llm-analysis's on the validation rows.

Run: python bench/bench_estimators.py

Installs nothing. If ``llm_analysis`` is importable (``pip install llm-analysis``; PyPI 0.2.2,
cli99/llm-analysis) it is run on the same rows (model, GPU, TP/PP/DP, micro-batch, global
batch, recompute, ZeRO, FlashAttention as in the row) with its *default* efficiency
(flops_efficiency = 1, i.e. peak), and its latency per iteration is converted to the row's
utilisation definition exactly as ours is (tests/validation/suite.py). Model shapes are given
to llm-analysis as ModelConfig objects, so nothing is downloaded. Rows it cannot express
(TP > 8, CP) are marked.

performance.md §8 and §9.3 describe what to expect: the PyPI version ignores the pipeline bubble
and all network time except TP, and its "MFU" equals the efficiency it is given, so at the
default efficiency it is 2-3x optimistic.
"""

from __future__ import annotations

import logging
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.validation import cases as C  # noqa: E402
from tests.validation import suite  # noqa: E402

try:  # optional
    from llm_analysis.analysis import ActivationRecomputation, DSZeRO, LLMAnalysis
    from llm_analysis.config import (ModelConfig, ParallelismConfig, get_dtype_config_by_name,
                                     get_gpu_config_by_name)
    HAVE_LLM_ANALYSIS = True
except Exception:  # noqa: BLE001 - any import problem means "not available"
    HAVE_LLM_ANALYSIS = False

_GPU = {"A100-SXM4-80GB": "a100-sxm-80gb", "H100-SXM5-80GB": "h100-sxm-80gb"}


def _accelerator(case: C.PerfCase) -> str:
    from core.catalog import default_catalog  # noqa: PLC0415

    catalog = default_catalog()
    return catalog.get(suite.server_of(case.hardware)).accelerator


def llm_analysis_step(case: C.PerfCase) -> tuple[float | None, str, float]:
    """(seconds per iteration, note, seconds the estimate took) from llm-analysis defaults."""
    p = case.parallelism
    tp, pp, dp, cp = p.get("tp", 1), p.get("pp", 1), p.get("dp", 1), p.get("cp", 1)
    gpu = _GPU.get(_accelerator(case))
    if gpu is None:
        return None, "GPU not in llm-analysis", 0.0
    if tp > 8 or cp > 1:
        return None, "TP > 8 or CP not supported", 0.0
    m = case.model
    try:
        model = ModelConfig(
            name=f"row-{case.id}", num_layers=m["layers"], n_head=m["heads"],
            hidden_dim=m["hidden"], vocab_size=m["vocab"], max_seq_len=m["seq_len"],
            num_key_value_heads=m.get("kv_heads") or m["heads"], ffn_embed_dim=m["ffn_hidden"])
    except AssertionError:
        return None, "FFN not a multiple of hidden", 0.0
    recompute = {"none": ActivationRecomputation.NONE,
                 "selective": ActivationRecomputation.SELECTIVE,
                 "full": ActivationRecomputation.FULL}[p.get("recompute", "none")]
    zero = [DSZeRO.NONE, DSZeRO.STAGE_1, DSZeRO.STAGE_2, DSZeRO.STAGE_3][p.get("zero_stage", 1)]
    start = time.perf_counter()
    try:
        analysis = LLMAnalysis(model, get_gpu_config_by_name(gpu),
                               get_dtype_config_by_name("w16a16e16"),
                               ParallelismConfig(tp_size=tp, pp_size=pp, dp_size=dp))
        summary = analysis.training(
            batch_size_per_gpu=p.get("micro_batch", 1), global_batch_size=p["global_batch"],
            seq_len=m["seq_len"], activation_recomputation=recompute, ds_zero=zero,
            flash_attn=case.stack.get("flash_attention", True),
            mlp_gated_linear_units=m.get("activation") == "swiglu")
    except Exception as exc:  # noqa: BLE001 - report, keep going
        return None, f"llm-analysis error: {exc}", time.perf_counter() - start
    return float(summary["latency_per_iter"]), "", time.perf_counter() - start


def main() -> int:
    logging.disable(logging.WARNING)
    if not HAVE_LLM_ANALYSIS:
        print("llm_analysis is not importable: `pip install llm-analysis` to add its column.\n")
    header = (f"{'row':7s} {'run':38s} {'def':4s} {'published':>16s} {'ours':>16s} {'err':>8s}"
              + (f" {'llm-analysis':>16s} {'err':>8s}" if HAVE_LLM_ANALYSIS else ""))
    print(header)
    print("-" * len(header))
    ours_err, theirs_err = [], []
    ours_ms, theirs_ms = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for case in C.PERF_CASES + C.EXTRA_CASES:
            util_pub, _ = suite.published_util(case)
            step_pub, _ = suite.published_step(case)
            if util_pub is None or step_pub is None:
                continue
            t0 = time.perf_counter()
            pred = suite.predict(case, Path(tmp), use_subprocess=False)
            ours_ms.append((time.perf_counter() - t0) * 1e3)
            kind = case.util_kind.upper()
            line = (f"{case.id:7s} {case.title[:38]:38s} {kind:4s} "
                    f"{step_pub:8.2f}s {100 * util_pub:5.1f}% "
                    f"{pred.step_s:8.2f}s {100 * pred.util:5.1f}% "
                    f"{100 * (pred.util - util_pub):+7.1f}pt")
            gated = case.policy == "gated"
            if gated:
                ours_err.append(abs(pred.util - util_pub))
            if HAVE_LLM_ANALYSIS:
                t, note, seconds = llm_analysis_step(case)
                if t is None:
                    line += f" {note:>25s}"
                else:
                    theirs_ms.append(seconds * 1e3)
                    util = util_pub * step_pub / t
                    line += f" {t:8.2f}s {100 * util:5.1f}% {100 * (util - util_pub):+7.1f}pt"
                    if gated:
                        theirs_err.append(abs(util - util_pub))
            print(line + ("" if gated else f"   [{case.policy}]"))
    print()
    mean = lambda xs: 100 * sum(xs) / len(xs) if xs else math.nan  # noqa: E731
    print(f"mean |utilisation error| over gated rows: ours {mean(ours_err):.2f} points "
          f"({len(ours_err)} rows)"
          + (f", llm-analysis {mean(theirs_err):.2f} points ({len(theirs_err)} rows)"
             if HAVE_LLM_ANALYSIS else ""))
    print(f"time per estimate: ours {sorted(ours_ms)[len(ours_ms) // 2]:.1f} ms median "
          "(project write + CLI evaluate in-process, whole evaluation)"
          + (f", llm-analysis {sorted(theirs_ms)[len(theirs_ms) // 2]:.1f} ms median"
             if theirs_ms else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
