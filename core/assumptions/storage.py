"""The storage assumptions: contention, device latencies, IOPS, the multi-level checkpoint
tiers (read by core/analysis/storage.py and reliability)."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.errors import ProjectFileError


_LATENCY_US = {"min": 0.0, "unit": "µs"}


@dataclass(frozen=True)
class StorageAssumptions:
    # Share of the other compute nodes doing storage I/O while the job does (1: every node
    # bursts at once and the job gets its fair share of shared tiers by endpoints; 0: the job
    # has the shared tiers and storage to itself). E: checkpoint bursts of co-scheduled jobs.
    contention: float = field(default=1.0, metadata={"min": 0.0, "max": 1.0, "unit": "fraction"})
    # Service latency of a read at the storage node (E: NVMe flash ~80-100 µs plus the
    # parallel-file-system client and server; no public per-appliance figure).
    device_read_latency_us: float = field(default=100.0, metadata=_LATENCY_US)
    # Service latency of a write into the storage node's write cache (E, as above).
    device_write_latency_us: float = field(default=50.0, metadata=_LATENCY_US)
    # Size of one small random read (KV-cache block, embedding row): 4 KiB pages.
    small_read_bytes: float = field(default=4096.0, metadata={"min": 1.0, "unit": "bytes"})
    # Random-read IOPS per GB/s of rated sequential read when the catalog entry has no
    # ``read_iops`` (E: DDN AI400X2 ~3 M IOPS at ~90 GB/s, recalled; hardware.md §7 row).
    iops_per_read_gbyte_s: float = field(default=33_000.0, metadata={"min": 0.0, "unit": "IOPS per GB/s"})
    # --- multi-level checkpoints (article 003: a memory tier plus asynchronous flush) ---
    # Fast tiers in front of the storage system, first to last as listed: name -> [GB/s per
    # compute node into (and back out of) the tier, GB per node it holds, peer copies]. Peer
    # copies are replicas on other nodes (GEMINI keeps checkpoints in peers' CPU memory): with
    # 0 the tier dies with its node, with 1 or more it survives a node failure, and the tier
    # must hold the job's shard 1 + copies times. E.g. {"host-memory": [200, 1024, 1]}: PCIe
    # Gen5 x16 ~25 GB/s per GPU x 8 (E). The storage path is always the last, persisting tier.
    # Empty: the reliability analysis's single-tier model (checkpoint_mode, async_blocking_s).
    checkpoint_tiers: dict[str, list[float]] = field(
        default_factory=dict, metadata={"min": 0.0})
    # Encrypt the storage traffic that leaves through DPUs (IPsec on their security engines,
    # tenant isolation as in article 003): the security engine's rate then caps that path.
    dpu_encrypt_storage: bool = False

    def __post_init__(self) -> None:
        for name, row in self.checkpoint_tiers.items():
            if len(row) != 3 or not row[0] > 0 or row[2] != int(row[2]):
                raise ProjectFileError(
                    f"$.assumptions.storage.checkpoint_tiers.{name}: expected [GB/s per node > 0, "
                    f"GB per node, whole number of peer copies], got {list(row)}")

    def checkpoint_tier_list(self) -> tuple["CheckpointTier", ...]:
        """The checkpoint tiers as rows, first to last."""
        return tuple(CheckpointTier(name, float(row[0]), float(row[1]), int(row[2]))
                     for name, row in self.checkpoint_tiers.items())


@dataclass(frozen=True)
class CheckpointTier:
    """One fast checkpoint tier in front of the storage system (per compute node)."""

    name: str
    gbyte_s_per_node: float
    capacity_gb_per_node: float
    peer_copies: int          # replicas on other nodes; > 0 survives a node failure

    @property
    def survives_failure(self) -> bool:
        return self.peer_copies > 0
