"""Run a sweep: every combination of a spec, evaluated on a local process pool or a Dask cluster.

Combinations travel in chunks (``chunk_size``): one task evaluates several designs, so what a
task costs to schedule and pickle is paid once per chunk, while chunks stay small enough that
the progress bar moves and the workers finish together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.process_pool import ProcessPoolBroken, completed_in_processes, default_workers
from core.sweep.recipe import evaluate_recipes
from core.sweep.spec import SweepSpec

BACKENDS = ("local", "dask")
# A 16k-GPU design evaluates in about 50-100 ms: 8 designs make a task of under a second.
MAX_CHUNK = 8
CHUNKS_PER_WORKER = 4  # at least: the last chunks of a sweep then leave no worker idle long


def chunk_size(combinations: int, workers: int) -> int:
    return max(1, min(MAX_CHUNK, combinations // (workers * CHUNKS_PER_WORKER)))


def run_sweep(spec: SweepSpec, jobs: int | None = None, backend: str = "local",
              scheduler: str | None = None,
              progress: Callable[[int], None] | None = None) -> tuple[list[dict], list[dict]]:
    """(recipes, outcomes) of every combination, in cross-product order. ``jobs``: worker
    processes (default: the cores available; 1 runs in this process); ``backend`` "dask" runs
    on the cluster at ``scheduler`` (else a local one of ``jobs`` workers). ``progress(n)`` is
    called as each chunk of n designs finishes."""
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r} is not one of {BACKENDS}")
    workers = jobs or default_workers()
    recipes = list(spec.recipes())
    size = chunk_size(len(recipes), workers)
    chunks = [recipes[i:i + size] for i in range(0, len(recipes), size)]
    outcomes: list[Any] = [None] * len(chunks)

    def done(index: int, chunk_outcomes: list[dict]) -> None:
        outcomes[index] = chunk_outcomes
        if progress is not None:
            progress(len(chunk_outcomes))

    if backend == "dask":
        from core.sweep.dask_backend import run_on_dask  # noqa: PLC0415 - an optional extra

        run_on_dask(chunks, done, scheduler, workers)
    else:
        _run_locally(chunks, done, workers)
    return recipes, [outcome for chunk in outcomes for outcome in chunk]


def _run_locally(chunks: list[list[dict]], done: Callable[[int, list[dict]], None],
                 workers: int) -> None:
    finished: set[int] = set()
    if workers > 1 and len(chunks) > 1:
        try:
            for index, chunk_outcomes in completed_in_processes(evaluate_recipes, chunks, workers):
                done(index, chunk_outcomes)
            return
        except ProcessPoolBroken as exc:
            # No processes here (a script without a __main__ guard) or a worker died (out of
            # memory): what is left runs in this process rather than losing the sweep.
            finished = exc.done
    for index, chunk in enumerate(chunks):
        if index not in finished:
            done(index, evaluate_recipes(chunk))
