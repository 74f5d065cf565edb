"""Several workloads on one design, from the command line: ``--service`` and
``--workload-partition`` of ``evaluate`` and ``generate`` (core/services.py).

``--service NAME=WORKLOAD@GPUS`` serves an inference preset (or an inference workload file) on
GPUS GPUs of the design; ``--service NAME=WORKLOAD@blocks:PATH,PATH`` on those blocks (every
instance of a repeated block). ``--workload-partition [NAME=]GPUS`` or
``[NAME=]blocks:PATH,PATH`` puts the main workload on a partition of its own; without it the
main workload takes what the services leave. A training preset given with ``--workload`` is
fitted to that partition's GPUs. Kept apart from designer/cli/command.py, which only registers them.
"""

from __future__ import annotations

import argparse

from core.errors import DesignError

SERVICE_HELP = ("serve an inference workload on part of the design: NAME=WORKLOAD@GPUS (a GPU "
                "count) or NAME=WORKLOAD@blocks:PATH[,PATH...] (design blocks, every instance of a "
                "repeated one); WORKLOAD is an inference preset ({presets}) or an inference "
                "workload file. Repeatable; replaces a service of the same name. The main "
                "workload runs on what the services leave unless --workload-partition says")
PARTITION_HELP = ("run the main workload on a partition of its own: [NAME=]GPUS or "
                  "[NAME=]blocks:PATH[,PATH...] (default name: main)")
BLOCKS = "blocks:"


def add_service_options(parser: argparse.ArgumentParser) -> None:
    from core.inference_workload import list_inference_presets  # noqa: PLC0415

    parser.add_argument("--service", action="append", default=[], metavar="NAME=WORKLOAD@WHERE",
                        help=SERVICE_HELP.format(presets=", ".join(list_inference_presets())))
    parser.add_argument("--workload-partition", metavar="[NAME=]WHERE", help=PARTITION_HELP)


def partition_from_text(text: str, name: str, option: str):
    """A Partition from "576" or "blocks:serve,serve-2"; a one-line error naming ``option``."""
    from core.services import Partition  # noqa: PLC0415

    if text.startswith(BLOCKS):
        return Partition(name, blocks=tuple(text[len(BLOCKS):].split(",")))
    try:
        gpus = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise DesignError(f"{option}: {text!r} is not a GPU count or blocks:PATH[,PATH...]") from None
    return Partition(name, gpus=gpus)


def _service_from_text(text: str, load_workload):
    from core.inference_workload import InferenceWorkload  # noqa: PLC0415
    from core.services import Service  # noqa: PLC0415

    option = f"--service {text!r}"
    name, equals, rest = text.partition("=")
    workload_text, at, where = rest.rpartition("@")
    if not equals or not at or not name or not workload_text or not where:
        raise DesignError(f"{option}: expected NAME=WORKLOAD@GPUS or NAME=WORKLOAD@blocks:PATH[,PATH...]")
    try:
        workload = load_workload(workload_text)
    except DesignError as exc:
        raise DesignError(f"{option}: {exc}") from None
    if not isinstance(workload, InferenceWorkload):
        raise DesignError(f"{option}: {workload_text} is a training workload; a service serves an "
                          f"inference one (\"kind\": \"inference\")")
    try:
        return Service(name, partition_from_text(where, "", option), workload)
    except DesignError as exc:
        raise DesignError(exc if str(exc).startswith(option) else f"{option}: {exc}") from None


def apply_service_options(design, args, load_workload):
    """``design`` with the ``--workload-partition`` and ``--service`` options applied (itself
    when none was given); ``load_workload`` reads a preset name or a workload file."""
    if not args.service and not args.workload_partition:
        return design
    from core.operations import AddService, ChangeService, SetWorkloadPartition  # noqa: PLC0415

    if args.workload_partition:
        option = f"--workload-partition {args.workload_partition!r}"
        name, equals, where = args.workload_partition.rpartition("=")
        try:
            design.apply(SetWorkloadPartition(partition_from_text(where, name, option)))
        except DesignError as exc:
            raise DesignError(exc if str(exc).startswith(option) else f"{option}: {exc}") from None
    for text in args.service:
        service = _service_from_text(text, load_workload)
        taken = {s.name for s in design.services}
        try:
            design.apply(ChangeService(service.name, service) if service.name in taken else AddService(service))
        except DesignError as exc:
            raise DesignError(f"--service {text!r}: {exc}") from None
    return design
