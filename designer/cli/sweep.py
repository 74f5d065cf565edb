"""The ``sweep`` subcommand of ``cluster-designer`` (core/sweep/ does the work).

Kept apart from designer/cli/command.py so that the other subcommands grow without touching these
lines; cli.py only registers it.
"""

from __future__ import annotations

import argparse
import sys


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"--jobs must be at least 1, got {value}")
    return value


def add_sweep_command(sub, make_subcommand) -> None:
    """Register ``sweep``; ``make_subcommand`` is cli.py's helper that adds the help example."""
    parser = make_subcommand(
        sub, "sweep", "evaluate every combination of a sweep spec",
        "Evaluate the cross product of a sweep spec (generator options x workloads x software "
        "stacks x assumption values; format in the README, examples in resources/sweeps/) and "
        "write one CSV row per design: its parameters, every headline metric (serving ones for "
        "inference workloads, whose \"deployment\": \"auto\" is searched on each design), "
        "whether a serving workload meets its SLOs, an error column for combinations that were "
        "skipped, a pareto column (true/false on the objectives; a design missing its SLOs is "
        "never on it) and a recipe that rebuilds the design. Open the results in the window with "
        "File > Open Sweep Results.",
        "cluster-designer sweep resources/sweeps/ib-vs-roce-16k.json -o results.csv --jobs 2\n"
        "cluster-designer sweep spec.json -o r.csv --objectives mfu:max capex_usd")
    parser.add_argument("spec", metavar="SPEC", help="sweep spec file (.json)")
    parser.add_argument("-o", "--output", required=True, metavar="RESULTS.csv",
                        help="results file to write (CSV, written atomically once every design is done)")
    parser.add_argument("--jobs", type=_jobs, metavar="N",
                        help="worker processes at most (default: the cores available; 1 runs in this "
                             "process, and so does a sweep that would finish before ~1.5 s of worker "
                             "start-up paid off)")
    parser.add_argument("--backend", choices=("local", "dask"), default="local",
                        help="local: a process pool on this machine; dask: a Dask cluster "
                             "(--scheduler, else a local one of --jobs workers; needs "
                             "pip install 'cluster-designer[distributed]') (default: local)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="with --backend dask: the scheduler of an existing cluster, e.g. "
                             "tcp://10.0.0.5:8786 (its workers need cluster-designer installed)")
    parser.add_argument("--objectives", nargs="+", metavar="METRIC[:min|max]",
                        help="Pareto objectives replacing the spec's, by flat metric name or a "
                             "unique key (training_days, cost.capex_usd:min, mfu:max); without "
                             ":min/:max the metric's better side (default: the spec's, else, all "
                             "min: training_days, capex_usd, facility_kw for training workloads; "
                             "usd_per_million_output_tokens, tpot_ms, facility_kw for inference "
                             "ones; capex_usd, facility_kw for both kinds or none)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar on stderr")


def run_sweep_command(args) -> int:
    from tqdm import tqdm  # noqa: PLC0415

    from core.errors import DesignError  # noqa: PLC0415
    from core.sweep.results import write_results  # noqa: PLC0415
    from core.sweep.run import run_sweep  # noqa: PLC0415
    from core.sweep.spec import load_sweep_spec  # noqa: PLC0415

    if args.scheduler and args.backend != "dask":
        raise DesignError("--scheduler goes with --backend dask")
    spec = load_sweep_spec(args.spec, args.objectives)
    # No monitor thread: while the worker pool starts, Ctrl+C is held back in every thread of
    # this process (core/process_pool.py); a thread started before that, as tqdm's monitor is,
    # would take the signal instead and drop it
    tqdm.monitor_interval = 0
    with tqdm(total=spec.combinations, desc=spec.name, unit="design", file=sys.stderr,
              disable=args.no_progress, dynamic_ncols=True) as bar:
        recipes, outcomes = run_sweep(spec, args.jobs, args.backend, args.scheduler, bar.update)
    on_front = int(write_results(args.output, spec, recipes, outcomes).sum())
    skipped = sum(1 for o in outcomes if o["error"] is not None)
    missed = sum(1 for o in outcomes if o["meets_slo"] is False)
    objectives = ", ".join(o.label for o in spec.objectives)
    missed_text = f"{missed:,} missing their serving SLOs, " if missed else ""
    sys.stderr.write(f"cluster-designer: {len(outcomes):,} designs, {skipped:,} with an error, "
                     f"{missed_text}{on_front:,} on the Pareto front ({objectives}) -> {args.output}\n")
    return 0
