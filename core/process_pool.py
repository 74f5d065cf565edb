"""Worker processes for pure, CPU-bound work (the parallelism search, sweeps).

One ``ProcessPoolExecutor`` is spawned on first use and reused across calls (its start-up costs
more than a small search), with the spawn start method, which is safe from the GUI's threads.
When processes cannot run here (a script without a ``__main__`` guard under spawn, a pickling
error, a broken pool) ``map_in_processes`` returns None and the caller runs serially.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

_POOL: ProcessPoolExecutor | None = None
_POOL_WORKERS = 0


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def map_in_processes(fn: Callable[[Any], Any], jobs: Sequence[Any], workers: int) -> list | None:
    """``[fn(job) for job in jobs]`` on ``workers`` processes, in order; None when worker
    processes cannot run here. ``fn`` must be a module-level function and jobs picklable."""
    try:
        # map hands out every job at once (and so starts the workers) before it yields: the
        # workers start with SIGINT held back, as the sweep's do (a pool started here is reused
        # by a sweep, and its workers, interrupted while importing, printed tracebacks)
        with _new_processes_ignore_sigint():
            results = _pool(workers).map(fn, jobs)
        return list(results)
    except Exception:  # noqa: BLE001 - BrokenProcessPool, RuntimeError from spawn, pickling
        _shutdown_pool()
        return None


class ProcessPoolBroken(RuntimeError):
    """Worker processes could not start or died (``done`` holds the indices already yielded)."""

    def __init__(self, done: set[int]):
        super().__init__("worker processes cannot run here")
        self.done = done


def completed_in_processes(fn: Callable[[Any], Any], jobs: Sequence[Any],
                           workers: int) -> Iterator[tuple[int, Any]]:
    """``(index, fn(jobs[index]))`` for every job, in the order they finish (for a progress
    bar); raises ``ProcessPoolBroken`` when processes cannot run here or a worker dies, so the
    caller can run the rest serially."""
    done: set[int] = set()
    try:
        with _new_processes_ignore_sigint():
            pool = _pool(workers)
            futures = {pool.submit(fn, job): index for index, job in enumerate(jobs)}
        for future in as_completed(futures):
            index = futures[future]
            result = future.result()
            done.add(index)
            yield index, result
    except Exception:  # noqa: BLE001 - BrokenProcessPool, RuntimeError from spawn, pickling
        _shutdown_pool()
        raise ProcessPoolBroken(done) from None
    except BaseException:
        # Ctrl+C, or a caller that stops iterating: the results are not wanted. Shutting down
        # alone would let the workers finish the jobs already handed to them (and Python waits
        # for that at exit, seconds to minutes): end them now.
        _terminate_pool()
        raise


@contextlib.contextmanager
def _new_processes_ignore_sigint():
    """Worker processes started inside (the pool starts them on submit) ignore SIGINT: Ctrl+C
    in a terminal reaches the whole process group, and only the parent should act on it (it
    cancels the queued jobs); a worker interrupted while importing would print a traceback.
    A spawned worker keeps an ignored signal through exec, but not a blocked one (its mask
    starts empty), so SIGINT is ignored here while the workers start; it is blocked too, and
    Linux keeps a blocked signal pending even while it is ignored, so a Ctrl+C in this window
    (a second and more on a busy machine) is acted on when it ends instead of being lost.
    Only the main thread handles signals; from other threads nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    blocking = hasattr(signal, "pthread_sigmask")  # not on Windows
    previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if blocking else None
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if blocking:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)


def _pool(workers: int) -> ProcessPoolExecutor:
    global _POOL, _POOL_WORKERS
    if _POOL is None or _POOL_WORKERS != workers:
        _shutdown_pool()
        _POOL = ProcessPoolExecutor(max_workers=workers,
                                    mp_context=multiprocessing.get_context("spawn"))
        _POOL_WORKERS = workers
    return _POOL


def _terminate_pool() -> None:
    global _POOL
    if _POOL is not None:
        # ProcessPoolExecutor has no public way to stop running work before Python 3.14
        # (terminate_workers): end the processes in its table (absent: nothing started yet).
        for process in list((getattr(_POOL, "_processes", None) or {}).values()):
            process.terminate()
        _shutdown_pool()


@atexit.register
def _shutdown_pool() -> None:
    global _POOL
    if _POOL is not None:
        _POOL.shutdown(wait=False, cancel_futures=True)
        _POOL = None
