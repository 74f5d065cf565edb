"""Re-derive the fitted constants of the serving model from their named data.

    python -m tests.validation.calibrate_serving

* ``prefill_compute_efficiency``, ``decode_compute_efficiency`` and ``fixed_us_per_layer``
  (core/assumptions/inference.py), together: least squares in log output tokens/s per
  GPU over the serving rows marked ``calibration`` in inference_cases.py: three H100 runs at
  large batches, which set the efficiencies (MLPerf Inference v4.1 Llama 2 70B Offline on a
  DGX H100, and TensorRT-LLM's Llama 3.3 70B TP 2 at 1,000 / 1,000 and 8,192 / 1,024 tokens),
  and three aiconfigurator silicon runs of Llama 3.1 70B at concurrency 4 (H100 vLLM TP 4,
  H200 TensorRT-LLM TP 8, B200 TensorRT-LLM TP 4), where the weights' read and the fixed cost
  per layer are the step, which set the fixed cost; ``hbm_efficiency`` at its stated estimate.
  Every other serving row is a prediction with the fitted values.
* A check, not a fit: the same least squares with ``hbm_efficiency`` free as well, over those
  rows and the memory-bound MLPerf Mixtral 8x7B Offline row (every expert read per step), to
  see whether the data move the HBM estimate.

Prints the fitted values and each calibration row's residual; it does not edit the code (the
constants live in core/assumptions/inference.py next to the comment naming this data).
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

from scipy.optimize import least_squares

from core.assumptions.inference import InferenceAssumptions

from . import inference_cases as IC
from .serving_suite import predict_serving

FITTED = ("prefill_compute_efficiency", "decode_compute_efficiency", "fixed_us_per_layer")
# where each constant is searched: fractions of the peak, microseconds per layer
BOUNDS = {"prefill_compute_efficiency": (0.05, 1.0), "decode_compute_efficiency": (0.05, 1.0),
          "hbm_efficiency": (0.05, 1.0), "fixed_us_per_layer": (0.0, 500.0)}
CHECK_ROWS = ("MLP41-MX-8x7B-H100x8-offline",)


def _rows(extra: tuple[str, ...] = ()) -> list[IC.ServingCase]:
    """The calibration rows, and the rows ``extra``."""
    return [c for c in IC.ALL_SERVING_CASES if c.calibration or c.id in extra]


def _fit(cases: list[IC.ServingCase], names: tuple[str, ...], folder: Path) -> dict[str, float]:
    """Least squares in log tokens/s per GPU of ``cases`` over the assumptions ``names``."""
    start = InferenceAssumptions()

    def residuals(values) -> list[float]:
        assumptions = dict(zip(names, (float(v) for v in values)))
        return [math.log(predict_serving(c, folder, assumptions).value / c.published) for c in cases]

    low, high = zip(*(BOUNDS[n] for n in names))
    # a start strictly inside the bounds (a constant at 0 is on its bound)
    x0 = [min(max(getattr(start, n), lo + 0.01 * (hi - lo)), hi) for n, lo, hi in zip(names, low, high)]
    result = least_squares(residuals, x0, bounds=(low, high), diff_step=1e-3)
    return dict(zip(names, (float(v) for v in result.x)))


def _residuals(cases: list[IC.ServingCase], assumptions: dict, folder: Path) -> dict[str, str]:
    return {c.id: f"{100 * (predict_serving(c, folder, assumptions).value / c.published - 1):+.1f}%"
            for c in cases}


def fit() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows = _rows()
        fitted = _fit(rows, FITTED, folder)
        check_rows = _rows(CHECK_ROWS)
        check = _fit(check_rows, (*FITTED, "hbm_efficiency"), folder)
        return {**fitted, "residuals": _residuals(rows, fitted, folder),
                "check (hbm_efficiency free, with " + ", ".join(CHECK_ROWS) + ")": check}


def main() -> int:
    for key, value in fit().items():
        if isinstance(value, dict):
            value = {k: round(v, 3) if isinstance(v, float) else v for k, v in value.items()}
            print(f"{key}: {value}")
        else:
            print(f"{key}: {value:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
