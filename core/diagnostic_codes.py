"""Every warning code an evaluation can raise: its severity and what it means, in one table.

Severities (``SEVERITIES``, most serious first):

* ``error``: the result is invalid or cannot be computed (the job cannot run, the design cannot
  be built as drawn). Where a number cannot be computed it is absent (None / null), never a
  number computed as if it could.
* ``warning``: the design is risky, or a result is an estimate with a known hole.
* ``info``: a fact the user should know (the job uses part of the cluster, no workload).

docs/warnings.md lists this table for users; tests/test_diagnostics.py keeps the two equal and
checks that every code raised in core is here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class CodeInfo:
    severity: Severity
    meaning: str  # one line: what the code says about the design or the result


CODES: dict[str, CodeInfo] = {
    # --- the job cannot run: performance (and what depends on it) is absent ------------------
    "PARALLELISM_EXCEEDS_GPUS": CodeInfo(
        "error", "the layout needs more GPUs than the design has: the job cannot run"),
    "DOES_NOT_FIT_MEMORY": CodeInfo(
        "error", "the layout needs more memory per GPU than the accelerator has: the job cannot "
                 "run (the message says by how much and the lightest recompute that would fit)"),
    "NO_CONFIGURATION_FITS": CodeInfo(
        "error", "the parallelism search found no layout that fits in memory: the job cannot run"),
    "NO_NETWORK_BANDWIDTH": CodeInfo(
        "error", "a network level the job's collectives cross has no bandwidth: the job cannot run"),
    "NO_HOST_LINK": CodeInfo(
        "error", "activation offload needs the accelerator's host link, which the catalog does "
                 "not give: the job cannot run as laid out"),
    "JOB_NOT_CONNECTED": CodeInfo(
        "error", "the job needs more GPUs than the largest connected part of the fabric: it cannot run"),
    "NO_GPUS": CodeInfo(
        "error", "the design has no GPUs: the workload cannot run"),
    "PARTITION_UNKNOWN_BLOCK": CodeInfo(
        "error", "a partition names a block or component the design does not have: the workload "
                 "on it is not evaluated"),
    "PARTITION_DOES_NOT_FIT": CodeInfo(
        "error", "a partition asks more GPUs than the design has outside the block partitions, or "
                 "holds none: the workload on it is not evaluated"),
    "SERVING_PRECISION_UNSUPPORTED": CodeInfo(
        "error", "the accelerator has no dense peak for the inference workload's serving precision: "
                 "serving figures are not computed"),
    "NO_DEPLOYMENT_FITS": CodeInfo(
        "error", "the inference deployment search found no deployment that runs on the GPUs: "
                 "serving figures are not computed"),
    "HOST_LINK_UNKNOWN": CodeInfo(
        "error", "the KV cache is placed in host memory but neither the workload nor the "
                 "accelerator's catalog entry gives the host link's bandwidth: serving figures are "
                 "not computed"),
    "NO_KV_STORAGE": CodeInfo(
        "error", "a remote prefix cache needs storage the GPUs reach, and the design has none: "
                 "serving figures are not computed"),
    # --- the design cannot be built as drawn --------------------------------------------------
    "SWITCH_PORTS_EXCEEDED": CodeInfo(
        "error", "a switch has more links drawn than it has ports"),
    "OPTICS_MEDIUM_MISMATCH": CodeInfo(
        "error", "the optics at the two ends of a link (or the link and a co-packaged-optics "
        "switch) take different media: multimode SR against single-mode DR/FR/LR, or copper"),
    "NODE_PORTS_EXCEEDED": CodeInfo(
        "error", "a server or device has more links drawn than it has ports"),
    "PORT_SPEED_UNSUPPORTED": CodeInfo(
        "error", "a switch has no ports at the speed of a link drawn to it"),
    "LINK_FASTER_THAN_PORT": CodeInfo(
        "error", "a link is faster than the ports at its end"),
    "LINK_TOO_LONG": CodeInfo(
        "error", "a link is longer than the reach of any catalog cable for it"),
    "PUE_BELOW_ONE": CodeInfo(
        "error", "the assumed PUE is below 1, which is physically impossible"),
    "UNPRICED_COMPONENTS": CodeInfo(
        "error", "some components have no price: capex, TCO and the cost figures derived from "
                 "them are not computed"),
    # --- the design is risky, or a result is an estimate with a known hole ---------------------
    "FABRIC_PARTITIONED": CodeInfo(
        "warning", "the scale-out fabric falls into parts no switch joins; the message says what would join them"),
    "PARTITIONS_OVERLAP": CodeInfo(
        "warning", "two partitions share GPUs (a block in both, or one inside the other): their "
                   "workloads cannot run at once; each is evaluated as if alone"),
    "PARTITIONS_EXCEED_DESIGN": CodeInfo(
        "warning", "the GPU-count partitions together ask more GPUs than the design has: they "
                   "cannot all run at once; each is evaluated as if alone"),
    "GPU_WITHOUT_SCALE_OUT": CodeInfo(
        "warning", "some GPUs have no scale-out link: jobs cannot use them with the others"),
    "NO_SCALE_OUT": CodeInfo(
        "warning", "compute nodes are not joined by a scale-out fabric: a job stays in one scale-up domain"),
    "ECMP_COLLISIONS": CodeInfo(
        "warning", "a hashed (ECMP / flowlet) tier puts several flows on one uplink: collectives "
                   "crossing it run below line rate"),
    "INCAST_RISK": CodeInfo(
        "warning", "all-to-all incast overflows the leaf's buffer per port: pauses or drops cut its rate"),
    "LOAD_BALANCING_UNSUPPORTED": CodeInfo(
        "warning", "network.load_balancing forces a mode the switches and NICs do not support: a what-if"),
    "NON_LAYERED_FABRIC": CodeInfo(
        "warning", "links skip a tier or join switches of one tier: bisection is a spectral estimate"),
    "NO_SCALE_UP_PORTS": CodeInfo(
        "warning", "scale-up links are drawn to a node whose catalog entry lists no external scale-up ports"),
    "ACCELERATOR_OUTSIDE_SERVER": CodeInfo(
        "warning", "accelerators drawn on their own are counted but not modelled"),
    "NO_CABLE": CodeInfo(
        "warning", "no catalog cable fits a link: it is missing from the bill of materials and power"),
    "NO_TRANSCEIVER": CodeInfo(
        "warning", "no catalog transceiver fits a fiber link: optics are missing from the bill and power"),
    "PRECISION_NOT_SUPPORTED": CodeInfo(
        "warning", "the accelerator has no peak for the workload's precision: computed at its bf16 peak"),
    "UNCALIBRATED_ACCELERATOR": CodeInfo(
        "warning", "no published run of this accelerator is fitted: MFU and step time are estimates"),
    "TP_EXCEEDS_SCALE_UP": CodeInfo(
        "warning", "tensor-parallel traffic crosses the scale-out network"),
    "FEW_MICROBATCHES": CodeInfo(
        "warning", "too few micro-batches to fill the pipeline: the bubble dominates the step"),
    "BAD_ASSUMPTION": CodeInfo(
        "warning", "an assumption has a value the analysis does not know; the default is used"),
    "NO_STORAGE": CodeInfo(
        "warning", "no storage write bandwidth reaches the job: checkpoints cannot be persisted"),
    "CHECKPOINT_PERSIST_SLOW": CodeInfo(
        "warning", "persisting a checkpoint takes longer than the optimal checkpoint interval"),
    "CHECKPOINT_TIER_TOO_SMALL": CodeInfo(
        "warning", "a checkpoint tier holds less per node than the job's shard: the tier is skipped"),
    "DPU_BOTTLENECK": CodeInfo(
        "warning", "a DPU engine (storage or network) is the bottleneck of the job's storage I/O"),
    "DPU_CRYPTO_LIMIT": CodeInfo(
        "warning", "the storage traffic to encrypt exceeds the DPU security engine's IPsec rate, "
                   "or the DPU lists no rate to check"),
    "STORAGE_PARTLY_REACHED": CodeInfo(
        "warning", "some of the job's nodes have no path to storage: storage bandwidth is for the others"),
    "LOW_ETTR": CodeInfo(
        "warning", "the job loses more than 10% of its time to failures and checkpoints"),
    "KV_CACHE_LIMITS_BATCH": CodeInfo(
        "warning", "the HBM left for the KV cache holds fewer requests than the inference batch: "
                   "decode runs at the smaller batch"),
    "SLO_MISSED": CodeInfo(
        "warning", "the inference deployment misses its time-to-first-token or time-per-output-token target"),
    "NO_DEPLOYMENT_MEETS_SLO": CodeInfo(
        "warning", "no inference deployment the search tried meets both SLOs: it chose the one that "
                   "misses them least"),
    "SPARES_SHORT": CodeInfo(
        "warning", "too few spare nodes to keep the job whole while failed nodes are repaired"),
    "RACK_OVER_COOLING_LIMIT": CodeInfo(
        "warning", "compute racks draw more than their cooling type (air, rear-door, cold-plate, "
                   "immersion) removes"),
    # the floor plan (core/site): what the placed design asks of its halls, rows and cables
    "HALL_POWER_EXCEEDED": CodeInfo(
        "warning", "the racks placed in a hall draw more IT power than the hall delivers"),
    "HALL_COOLING_EXCEEDED": CodeInfo(
        "warning", "the racks placed in a hall give off more heat than its cooling removes"),
    "ROW_CDU_EXCEEDED": CodeInfo(
        "warning", "a row's liquid-cooled racks need more than its coolant distribution unit removes"),
    "SITE_RACK_OVER_LIMIT": CodeInfo(
        "warning", "a placed rack (network and storage racks included) draws more than its "
                   "cooling type removes"),
    "CABLE_REACH_EXCEEDED": CodeInfo(
        "warning", "a placed cable is longer than any medium of its kind (copper or fibre) reaches"),
    "SITE_PLACEMENT": CodeInfo(
        "warning", "a rack move could not be made, or the drawn halls cannot hold the design"),
    # --- facts -------------------------------------------------------------------------------
    "JOB_USES_PART_OF_CLUSTER": CodeInfo(
        "info", "the job uses fewer GPUs than the design has"),
    "JOB_EXCEEDS_DESIGN": CodeInfo(
        "info", "the job needs more GPUs than the design has: reliability is for a job on the whole "
                "design and the run's energy is not computed"),
    "DISAGGREGATED_POOLS_UNBALANCED": CodeInfo(
        "info", "one pool of a disaggregated inference deployment limits it while the other idles "
                "more than 10% of the time; the message gives the prefill:decode GPU ratio that "
                "balances them"),
    "AUTO_PARALLELISM": CodeInfo(
        "info", "the layout was chosen by the parallelism search"),
    "AUTO_DEPLOYMENT": CodeInfo(
        "info", "the inference deployment was chosen by the deployment search"),
    "UNEVEN_PIPELINE": CodeInfo(
        "info", "the layers do not divide evenly into pipeline stages: the fullest stage sets the pace"),
    "MIXED_LINK_SPEEDS": CodeInfo(
        "info", "scale-out links run at more than one speed"),
    "OUT_OF_SERVICE": CodeInfo(
        "info", "units are failed or drained: every figure describes the degraded design (section failure)"),
    "NO_WORKLOAD": CodeInfo(
        "info", "no workload: performance and the run's energy are not computed"),
    "NO_FAILURE_MODEL": CodeInfo(
        "info", "nothing in the design can fail: no reliability figures"),
}
