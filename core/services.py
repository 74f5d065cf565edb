"""Several workloads on one design: the inference services it carries and the partitions they
and the main workload run on (issue 15), with their checks and their JSON form.

A **partition** is where a workload runs: a set of design paths (blocks or components, every
instance of a repeated block: ``"pod"`` is all of pod's instances) or a GPU count taken from
the GPUs outside every block partition. A **service** is a named inference workload on a
partition. ``Design.workload_partition`` is the main workload's (training or inference); without
one the main workload may use every GPU the services leave. core/partitions.py resolves them
to GPUs and the fabric each sees; core/evaluate.py serves every service on its own.

Paths are only checked for their form here: a path naming nothing in the design (a block
deleted or renamed after the partition was set) is a PARTITION_UNKNOWN_BLOCK error of the
evaluation, never a refusal to edit, save or load the design.

The checks are rules (core/design_fields.py): the model runs them when a value is set, the
project loader (core/project.py) when it reads one, with the JSON path of a bad value
(``$.services[1].partition.blocks[0]: ...``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.design_fields import FieldProblem, check, count_rule, path_rule, show, text_rule
from core.errors import WorkloadError
from core.inference_workload import InferenceWorkload, check_any_workload, inference_workload_to_dict
from core.limits import MAX_ACCELERATORS, MAX_PARTITION_PATHS, MAX_SERVICES

# The name of the main workload's partition when it gives none (also the partition the main
# workload takes implicitly: every GPU the services leave).
MAIN_PARTITION = "main"

_text = text_rule()


@dataclass(frozen=True)
class Partition:
    """Where a workload runs: ``blocks`` (design paths, every instance of a repeated block) or
    ``gpus`` (a count of the GPUs outside every block partition), never both. ``name`` "" is
    named after its workload: the service's name, or ``MAIN_PARTITION``."""

    name: str = ""
    blocks: tuple[str, ...] = ()
    gpus: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.blocks, tuple):  # a list from code: stored as a tuple (frozen)
            object.__setattr__(self, "blocks", tuple(self.blocks) if isinstance(self.blocks, list)
                               else self.blocks)
        check(_partition_fields, self, "partition")

    def describe(self) -> str:
        """"blocks pod-a, pod-b" or "8,192 GPUs"."""
        if self.gpus is not None:
            return f"{self.gpus:,} GPUs"
        shown = ", ".join(self.blocks[:4]) + (f" and {len(self.blocks) - 4:,} more" if len(self.blocks) > 4 else "")
        return f"blocks {shown}"


@dataclass(frozen=True)
class Service:
    """An inference workload served on a partition of the design."""

    name: str
    partition: Partition
    workload: InferenceWorkload

    def __post_init__(self) -> None:
        check(_service_fields, self, f"service {show(self.name)}")

    @property
    def partition_name(self) -> str:
        return self.partition.name or self.name


def main_partition_name(partition: Partition | None) -> str:
    return partition.name if partition is not None and partition.name else MAIN_PARTITION


# --- rules ------------------------------------------------------------------------------------
def _partition_fields(p: Partition) -> Partition:
    try:
        _text(p.name)
    except FieldProblem as problem:
        raise FieldProblem(str(problem), ".name") from None
    if p.gpus is not None:
        if p.blocks:
            raise FieldProblem("give blocks (design paths) or gpus (a count), not both")
        try:
            gpus = count_rule(p.gpus)
        except FieldProblem as problem:
            raise FieldProblem(str(problem), ".gpus") from None
        if gpus > MAX_ACCELERATORS:
            raise FieldProblem(f"{gpus:,} GPUs; a design holds at most {MAX_ACCELERATORS:,} "
                               f"(limit in core/limits.py)", ".gpus")
        object.__setattr__(p, "gpus", gpus)  # a numpy integer stored as an int (frozen)
        return p
    if not isinstance(p.blocks, tuple) or not p.blocks:
        raise FieldProblem("give blocks (a list of design paths) or gpus (a count)")
    if len(p.blocks) > MAX_PARTITION_PATHS:
        raise FieldProblem(f"{len(p.blocks):,} paths; a partition holds at most "
                           f"{MAX_PARTITION_PATHS:,} (limit in core/limits.py)", ".blocks")
    seen: set[str] = set()
    for index, path in enumerate(p.blocks):
        try:
            path_rule(path)
        except FieldProblem as problem:
            raise FieldProblem(f"{problem}: a block path is ids joined by '/' (\"pod/su\")",
                               f".blocks[{index}]") from None
        if path in seen:
            raise FieldProblem(f"{show(path)} is listed twice", f".blocks[{index}]")
        seen.add(path)
    return p


def _service_fields(s: Service) -> Service:
    try:
        if not _text(s.name):
            raise FieldProblem("a service needs a name")
    except FieldProblem as problem:
        raise FieldProblem(str(problem), ".name") from None
    if not isinstance(s.partition, Partition):
        raise FieldProblem(f"expected a Partition, got {show(s.partition)}", ".partition")
    if not isinstance(s.workload, InferenceWorkload):
        raise FieldProblem("a service serves an inference workload (\"kind\": \"inference\"), "
                           f"got {show(s.workload)}", ".workload")
    try:
        check_any_workload(s.workload)
    except WorkloadError as exc:
        raise FieldProblem(str(exc), ".workload") from None
    return s


def services_rule(value: Any) -> tuple[Service, ...]:
    """A design's services: a tuple (a list is taken) of at most ``MAX_SERVICES``, names and
    partition names unique."""
    if isinstance(value, list):
        value = tuple(value)
    if not isinstance(value, tuple):
        raise FieldProblem(f"expected a list of services, got {show(value)}")
    if len(value) > MAX_SERVICES:
        raise FieldProblem(f"{len(value):,} services; a design carries at most {MAX_SERVICES} "
                           f"(limit in core/limits.py)")
    for index, service in enumerate(value):
        if not isinstance(service, Service):
            raise FieldProblem(f"expected a Service, got {show(service)}", f"[{index}]")
    check_names(None, value)
    return value


def workload_partition_rule(value: Any) -> Partition | None:
    if value is not None and not isinstance(value, Partition):
        raise FieldProblem(f"expected a Partition or None, got {show(value)}")
    return value


def check_names(main: Partition | None, services: tuple[Service, ...]) -> None:
    """Service names unique, and partition names unique among the services and the main
    workload's partition (``main`` None: not checked against it). A clash is a FieldProblem
    located in the services list ("[2].name")."""
    names: set[str] = set()
    partitions = {main_partition_name(main)} if main is not None else set()
    for index, service in enumerate(services):
        if service.name in names:
            raise FieldProblem(f"{show(service.name)} is already a service's name", f"[{index}].name")
        names.add(service.name)
        if service.partition_name in partitions:
            where = ".partition.name" if service.partition.name else ".name"
            raise FieldProblem(f"{show(service.partition_name)} already names another partition",
                               f"[{index}]{where}")
        partitions.add(service.partition_name)


# --- JSON form --------------------------------------------------------------------------------
def partition_to_dict(p: Partition) -> dict[str, Any]:
    out: dict[str, Any] = {"name": p.name} if p.name else {}
    if p.gpus is not None:
        out["gpus"] = p.gpus
    else:
        out["blocks"] = list(p.blocks)
    return out


def service_to_dict(s: Service) -> dict[str, Any]:
    return {"name": s.name, "partition": partition_to_dict(s.partition),
            "workload": inference_workload_to_dict(s.workload)}
