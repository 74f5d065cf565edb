"""Parallelism search off the GUI thread, and a tolerant reading of core's search result.

``run_search`` (worker thread) derives the design's fabric with core (flatten +
analyze_topology), calls ``core.analysis.parallelism_search.search_parallelism`` and turns its
result into ``Candidate`` rows. The result type may grow (rankings with reasons, MFU, memory);
whatever it carries is shown as is. What it does not carry is filled in by core too: each
candidate's MFU, memory and step-time breakdown come from ``analyze_performance`` on the same
fabric. Only as a last resort is a "why it loses" line composed here, from those core numbers.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal

from core.analysis.parallelism_search import search_parallelism
from core.analysis.performance import analyze_performance
from core.assumptions import Assumptions
from core.catalog import Catalog
from core.errors import DesignError
from core.flatten import flatten
from core.model import Design
from core.topology import analyze_topology
from core.workload import Parallelism, Workload, with_parallelism
from designer.common.format import seconds
from designer.common.worker import WorkerJob

MAX_RUNNERS_UP = 5
PART_NAMES = {
    "compute": "compute", "recompute": "recompute", "tp_comm": "TP communication",
    "cp_comm": "CP communication", "ep_comm": "EP communication", "pp_comm": "PP communication",
    "dp_comm": "DP communication", "bubble": "pipeline bubble", "optimizer": "optimizer step",
    "straggler": "stragglers", "other": "other",
}
_REASON_ATTRS = ("why_loses", "loses_because", "reason", "why", "explanation", "verdict", "note", "text")
_STEP_ATTRS = ("step_time_s", "step_s", "time_s")
_LIST_ATTRS = ("ranking", "ranked", "candidates", "configurations", "entries")


@dataclass(frozen=True)
class Candidate:
    parallelism: Parallelism
    step_time_s: float
    mfu: float
    memory_gb: float
    fits_memory: bool
    reason: str              # why it loses to the best (for the best: why it wins, or "")
    reason_from_core: bool   # False: composed by the GUI from core's numbers


@dataclass(frozen=True)
class SearchOutcome:
    workload: Workload                   # the workload searched (the form's, at search time)
    candidates: tuple[Candidate, ...]    # best first
    evaluated: int
    notes: tuple[str, ...]               # diagnostics of the search
    elapsed_s: float


def _first(obj: Any, names: tuple[str, ...]) -> Any:
    for name in names:
        value = getattr(obj, name, None)
        if value is not None and value != "":
            return value
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    inner = _first(value, ("text", "message", "summary", "description"))
    return inner if isinstance(inner, str) else str(value)


def _entry(raw: Any) -> dict[str, Any]:
    """One ranked configuration, whatever its shape: Parallelism, (par, step[, reason]), object."""
    if isinstance(raw, Parallelism):
        return {"par": raw}
    if isinstance(raw, (tuple, list)):
        par = next((x for x in raw if isinstance(x, Parallelism)), None)
        numbers = [x for x in raw if isinstance(x, (int, float)) and not isinstance(x, bool)]
        texts = [x for x in raw if isinstance(x, str)]
        return {"par": par, "step": numbers[0] if numbers else None, "reason": texts[0] if texts else None}
    par = _first(raw, ("parallelism", "par", "config", "configuration"))
    return {
        "par": par if isinstance(par, Parallelism) else None,
        "step": _first(raw, _STEP_ATTRS),
        "mfu": getattr(raw, "mfu", None),
        "memory": _first(raw, ("memory_per_gpu_gb", "memory_gb")),
        "fits": _first(raw, ("fits_memory", "fits")),
        "reason": _text(_first(raw, _REASON_ATTRS)) or None,
    }


def read_result(result: Any) -> tuple[list[dict[str, Any]], int, tuple[str, ...]]:
    """(entries best first, configurations evaluated, notes) from a search result."""
    entries: list[dict[str, Any]] = []
    for name in _LIST_ATTRS:
        seq = getattr(result, name, None)
        if seq:
            entries = [_entry(e) for e in seq]
            break
    best = getattr(result, "best", None)
    if isinstance(best, Parallelism):
        if not entries:
            entries = [_entry(e) for e in getattr(result, "runners_up", ()) or ()]
        same = [e for e in entries if e["par"] == best]
        head = same[0] if same else {"par": best}
        if head.get("step") is None:
            head["step"] = getattr(result, "step_time_s", None)
        entries = [head] + [e for e in entries if e is not head]
    # Reasons may come as a sequence parallel to the runners-up.
    for name in ("reasons", "why_not", "losses", "explanations"):
        seq = getattr(result, name, None)
        if seq and len(seq) in (len(entries), len(entries) - 1):
            offset = len(entries) - len(seq)
            for e, reason in zip(entries[offset:], seq):
                e["reason"] = e.get("reason") or _text(reason)
            break
    best_reason = _text(_first(result, ("why_best", "best_reason", "summary")))
    if entries and best_reason and not entries[0].get("reason"):
        entries[0]["reason"] = best_reason
    evaluated = int(getattr(result, "evaluated", 0) or 0)
    notes = tuple(_text(d) if not hasattr(d, "message") else d.message
                  for d in getattr(result, "diagnostics", ()) or ())
    return [e for e in entries if e.get("par") is not None], evaluated, notes


def _fallback_reason(perf, best_perf) -> str:
    """A short "why it loses" from core's step-time breakdowns (used only when core gives none)."""
    if not perf.fits_memory:
        return f"does not fit in memory ({perf.memory_per_gpu_gb:,.1f} GB per GPU)"
    if perf.breakdown_s is None:  # it cannot run: core says why
        return f"does not fit: {perf.cannot_run[0].message}"
    if best_perf.breakdown_s is None:
        return "slower per token"
    gaps = {part: perf.breakdown_s.get(part, 0.0) - best_perf.breakdown_s.get(part, 0.0)
            for part in set(perf.breakdown_s) | set(best_perf.breakdown_s)}
    worst = max(gaps, key=lambda p: gaps[p]) if gaps else None
    if worst is None or gaps[worst] <= 0:
        return "slower per token"
    return f"more {PART_NAMES.get(worst, worst)} (+{seconds(gaps[worst])} per step)"


def _call_search(fabric, workload: Workload, assumptions: Assumptions):
    kwargs: dict[str, Any] = {}
    try:
        params = inspect.signature(search_parallelism).parameters
    except (TypeError, ValueError):
        params = {}
    if "max_runners_up" in params:
        kwargs["max_runners_up"] = MAX_RUNNERS_UP
    return search_parallelism(fabric, workload, assumptions.performance, **kwargs)


def run_search(snapshot: Design, workload: Workload, catalog: Catalog) -> SearchOutcome:
    """Search ``workload``'s parallelism on ``snapshot``'s fabric (runs on a worker thread)."""
    start = time.perf_counter()
    assumptions = snapshot.assumptions or Assumptions()
    topology = analyze_topology(flatten(snapshot, catalog), assumptions.network)
    fabric = topology.fabric
    if fabric is None:
        raise DesignError("the design has no GPUs: there is nothing to search on")
    result = _call_search(fabric, workload, assumptions)
    entries, evaluated, notes = read_result(result)
    if not entries:
        raise DesignError("the search found no parallel configuration")
    perfs = []
    for e in entries:
        par = e["par"]
        candidate = with_parallelism(workload, **dataclasses.asdict(par))
        perfs.append(analyze_performance(fabric, candidate, assumptions.performance))
    out = []
    for n, (e, perf) in enumerate(zip(entries, perfs)):
        step = e.get("step")
        step = float(step) if isinstance(step, (int, float)) and math.isfinite(step) else perf.step_time_s
        reason = e.get("reason") or ""
        from_core = bool(reason)
        if not reason and n > 0:
            reason = _fallback_reason(perf, perfs[0])
        out.append(Candidate(
            e["par"], step,
            float(e["mfu"]) if isinstance(e.get("mfu"), (int, float)) else perf.mfu,
            float(e["memory"]) if isinstance(e.get("memory"), (int, float)) else perf.memory_per_gpu_gb,
            bool(e["fits"]) if e.get("fits") is not None else perf.fits_memory,
            reason, from_core,
        ))
    return SearchOutcome(workload, tuple(out), evaluated, notes, time.perf_counter() - start)


class SearchRunner(QObject):
    """One search at a time on its own thread; a newer request makes older results stale.
    ``run(snapshot, workload, catalog)`` is the search (worker thread): the parallelism search
    by default, the serving deployment search for an inference workload
    (designer/workload/inference_search.py)."""

    finished = Signal(object)   # what ``run`` returns: a SearchOutcome by default
    failed = Signal(str)
    _done = Signal(int, object)
    _failed = Signal(int, str)

    def __init__(self, catalog: Catalog, parent=None, run: Callable[[Design, Any, Catalog], object] | None = None):
        super().__init__(parent)
        self.catalog = catalog
        self._run = run or run_search
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._generation = 0
        self.running = False
        self._done.connect(self._on_done)
        self._failed.connect(self._on_failed)

    def start(self, design: Design, workload: Any) -> None:
        self._generation += 1
        self.running = True
        snapshot, run = design.snapshot(), self._run
        self._pool.start(WorkerJob(lambda: run(snapshot, workload, self.catalog),
                                   self._generation, self._done, self._failed, "search"))

    def _on_done(self, generation: int, outcome: SearchOutcome) -> None:
        if generation == self._generation:
            self.running = False
            self.finished.emit(outcome)

    def _on_failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            self.running = False
            self.failed.emit(message)

    def shutdown(self, timeout_ms: int = 10_000) -> None:
        self._generation += 1
        self.running = False
        self._pool.waitForDone(timeout_ms)
