"""What every bench script measures: the median time of a call over several runs, and the peak
Python memory of one (tracemalloc: numpy buffers included, the interpreter itself not)."""

from __future__ import annotations

import statistics
import time
import tracemalloc
from typing import Callable


def median_s(fn: Callable[[], object], repeat: int) -> float:
    """Median wall-clock seconds of ``fn()`` over ``repeat`` runs."""
    return median_wall_cpu_s(fn, repeat)[0]


def median_wall_cpu_s(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of ``fn()`` (CPU time shows the cost when other
    processes share the cores)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def peak_mb(fn: Callable[[], object]) -> float:
    """Peak traced memory of one ``fn()``, in MB."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()
