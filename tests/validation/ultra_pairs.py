"""GB300 (Blackwell Ultra) against GB200: the runs that calibrate the GB300 factor.

No GB300 run with a step time fits this model's GB300 on its own terms: every published GB300
training row is a later release than the NeMo 25.04 runs that calibrate GB200, and NVIDIA's
software alone moved its GB200 rows by 13-30% since (rows BG-*, report-only). What NVIDIA does
publish is the same recipe with the same layout on both systems in one release
(NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @067f987df, P). Their ratio
cancels the release: it measures the accelerator. Every dense pair of the archive is here (the
MoE pairs are left out so that the MoE rows stay predictions):

* Llama 3 8B on 8 GPUs, FP8 current scaling, 25.11: GB300 37,556, GB200 31,508 tokens/s/GPU;
* Llama 3 70B on 64 GPUs, FSDP 64, MBS 2, GBS 256, FP8, in five releases: 25.11 4,520 / 4,312;
  26.02 5,003 / 4,040; 26.02.01 5,243 / 4,357; 26.04 5,243 / 4,143; 26.04.01 5,248 / 4,224.

GB300 has GB200's dense BF16 and FP8 peaks (hardware-2025-26.md §1) and comes out 1.05-1.27x
GB200 per GPU on them (geometric mean 1.20): the Ultra part runs at 1,400 W against 1,200 W, so
it holds its clocks under load (E: NVIDIA does not publish the sustained clocks). The GB300
factor is the one that makes the engine's GB300 / GB200 step-time ratios match these in the
least-squares sense (``python -m tests.validation.calibrate``)."""

from __future__ import annotations

from . import cases as C
from .moe_cases import _gb300_nvl72

_SOURCE = ("NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @067f987df, "
           "{release} NeMo container, Pre-Training Performance ({model}: DGX-GB300 and DGX-GB200 "
           "rows with the same layout)")
_LLAMA3_8B_LAYOUT = dict(tp=1, pp=1, dp=8, micro_batch=2, global_batch=128)
_LLAMA3_70B_LAYOUT = dict(tp=1, pp=1, dp=64, micro_batch=2, global_batch=256, zero_stage=3)

# (id, title, model, layout, GPUs, release, GB300 tokens/s/GPU, GB200 tokens/s/GPU)
_PAIRS = (
    ("U-8B-8-2511", "Llama 3 8B", C._L31_8B, _LLAMA3_8B_LAYOUT, 8, "25.11", 37556, 31508),
    *((f"U-70B-64-{rel.replace('.', '')}", "Llama 3 70B", C._L31_70B, _LLAMA3_70B_LAYOUT, 64,
       rel, ultra, gb200)
      for rel, ultra, gb200 in (("25.11", 4520, 4312), ("26.02", 5003, 4040),
                                ("26.02.01", 5243, 4357), ("26.04", 5243, 4143),
                                ("26.04.01", 5248, 4224))),
)


def _case(pair_id: str, system: str, title: str, model: dict, layout: dict, gpus: int,
          release: str, tokens: float) -> C.PerfCase:
    step = layout["global_batch"] * model["seq_len"] / (tokens * gpus)
    hardware = _gb300_nvl72(gpus) if system == "GB300" else C._gb200_nvl72(gpus)
    zero = layout.get("zero_stage", 1)
    return C.PerfCase(
        f"{pair_id}-{system}", f"Megatron-Bridge {release} on {system} (FP8)",
        f"{title} on {gpus:,} {system}", model, dict(layout, zero_stage=zero, recompute="none"),
        hardware, f"{gpus:,} {system} on one NVL72 rack", C.BRIDGE_2511,
        _SOURCE.format(release=release, model=title), "P (tokens/s/GPU and layout; step D)",
        precision="fp8", published_step_s=step,
        util_definition=C._mfu_text(system, "fp8", "5,000"), policy="report-only")


# (GB300 case, GB200 case) per pair
PAIRS: tuple[tuple[C.PerfCase, C.PerfCase], ...] = tuple(
    (_case(pid, "GB300", title, model, layout, gpus, rel, ultra),
     _case(pid, "GB200", title, model, layout, gpus, rel, gb200))
    for pid, title, model, layout, gpus, rel, ultra, gb200 in _PAIRS
)


def ratios(folder, overrides=None) -> list[tuple[C.PerfCase, float, float]]:
    """(GB300 case, engine's GB300 / GB200 step-time ratio, published ratio) per pair, with
    the engine's assumptions as they stand, or each case's ``overrides(case)`` on top."""
    from . import suite  # noqa: PLC0415 (suite imports the case modules)

    def step(case: C.PerfCase) -> float:
        extra = overrides(case) if overrides is not None else None
        return suite.predict(case, folder, use_subprocess=False, extra_assumptions=extra).step_s

    return [(ultra, step(ultra) / step(sibling), ultra.published_step_s / sibling.published_step_s)
            for ultra, sibling in PAIRS]
