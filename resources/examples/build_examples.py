"""Rebuild the bundled example projects: python resources/examples/build_examples.py

Each example is a generated design with a workload preset whose parallelism is set to fit the
cluster (the presets carry the parallelism of their published runs).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from core.catalog import load_catalog  # noqa: E402
from core.generators import (FatTreeOptions, SupernodeOptions, generate_fat_tree,  # noqa: E402
                             generate_supernode)
from core.generators.supernode import nvl72_rack_from_parts  # noqa: E402
from core.inference_workload import load_inference_preset  # noqa: E402
from core.model import Block, Design, Link, Node  # noqa: E402
from core.project import save_project  # noqa: E402
from core.services import Partition, Service  # noqa: E402
from core.workload import load_preset, with_parallelism  # noqa: E402


def hand_drawn_nvl72_racks(racks: int) -> Design:
    """NVL72 racks drawn from trays and NVLink chips (shown expanded), the trays' 400G NICs on a
    2-tier QM9700 fabric (32 down / 32 up per leaf)."""
    rack = nvl72_rack_from_parts(racks)
    rack.collapsed = False
    nics = racks * 18 * 4
    leaves = -(-nics // 32)
    root = Block("root", f"{racks} hand-drawn GB200 NVL72 racks", children={
        "rack": rack,
        "leaf": Node("leaf", "QM9700", leaves, "Leaf", x=0.0, y=0.0, tier="leaf"),
        "spine": Node("spine", "QM9700", leaves, "Spine", x=0.0, y=-220.0, tier="spine")})
    root.links += [Link("l1", "rack/trays", "leaf", "scale-out", 400.0, nics, 10.0),
                   Link("l2", "leaf", "spine", "scale-out", 400.0, leaves * 32, 30.0)]
    return Design(root.name, root)


def train_and_serve(catalog) -> Design:
    """One cluster that trains and serves: the 4-SU DGX H100 SuperPOD (1,024 H100, its storage
    fabric) trains Llama 3 70B on its SUs, and a GB200 NVL72 scalable unit (8 racks, 576 GPUs,
    its own 18 leaves) serves DeepSeek-R1. The generators build one system each, so the design
    is the SuperPOD with the NVL72 SU grafted on: its leaves join the same QM9700 spine tier,
    grown from 16 to 25 spines for their 576 uplinks (1,600 uplinks over 64-port spines)."""
    design = generate_fat_tree(FatTreeOptions(
        1024, "DGX-H100", "QM9700", storage="AI400X2", storage_nodes=4,
        name="Train and serve: 1,024 H100 training, 576 GB200 NVL72 serving"), catalog)
    nvl72 = generate_supernode(SupernodeOptions("GB200-NVL72", 8), catalog).root.children["su"]
    root = design.root
    root.children["serve"] = dataclasses.replace(nvl72, id="serve", name="GB200 NVL72 serving SU",
                                                 x=root.children["su"].x + 600.0)
    uplinks = 18 * 32  # the NVL72 SU's leaves, 32 up each
    spine = root.children["spine"]
    spines = -(-(sum(link.count for link in root.links if link.b == "spine") + uplinks) // 64)
    root.children["spine"] = dataclasses.replace(spine, count=spines)
    root.links.append(Link("serve-up", "serve/leaf", "spine", "scale-out", 400.0, uplinks, 30.0))
    design.workload = load_preset("llama3-70b")  # TP 8, PP 4, DP 32: the 1,024 H100 as published
    design.workload_partition = Partition("training", blocks=("su",))
    design.services = (Service("reasoning", Partition(blocks=("serve",)),
                               load_inference_preset("deepseek-r1-serve")),)
    return design


def main() -> None:
    catalog = load_catalog(include_user=False)
    examples = {
        # NVIDIA DGX SuperPOD H100, 4 SU (RA-11333-001 Table 3 row 1) with a DDN storage fabric;
        # GPT-3 175B at the SC'21 parallelism (TP 8, PP 8, DP 16 on 1,024 GPUs).
        "dgx-h100-superpod-4su": (
            generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700", storage="AI400X2",
                                             storage_nodes=4,
                                             name="DGX H100 SuperPOD, 4 SU (1,024 GPUs)"), catalog),
            load_preset("gpt3-175b")),
        "gb200-nvl72-su": (
            generate_supernode(SupernodeOptions("GB200-NVL72", 8,
                                                name="GB200 NVL72 scalable unit (8 racks, 576 GPUs)"), catalog),
            with_parallelism(load_preset("llama3-70b"), tp=8, pp=4, dp=18, global_batch=1152)),
        "cloudmatrix384": (
            generate_supernode(SupernodeOptions("CloudMatrix384", 1, name="Huawei CloudMatrix384 super-node"),
                               catalog),
            with_parallelism(load_preset("mixtral-8x22b"), tp=8, pp=4, dp=12, ep=4, global_batch=768)),
        "islands-4x2048-h100": (
            generate_fat_tree(FatTreeOptions(8192, "DGX-H100", "SN5600", island_gpus=2048,
                                             island_oversubscription=4,
                                             name="Computing islands: 4 x 2,048 H100 joined 4:1"), catalog),
            with_parallelism(load_preset("llama3-70b"), tp=8, pp=4, dp=256, global_batch=2048)),
        # The NVLink domain comes from the drawn scale-up links, not from a catalog rack.
        "hand-drawn-nvl72-x4": (
            hand_drawn_nvl72_racks(4),
            with_parallelism(load_preset("llama3-70b"), tp=8, pp=4, dp=9, global_batch=1152)),
        "h100-100k": (
            generate_fat_tree(FatTreeOptions(100_000, "DGX-H100", "SN5600", storage="AI400X2",
                                             storage_nodes=100,
                                             name="100,000 H100 cluster (3-tier, 51.2T Ethernet)"), catalog),
            with_parallelism(load_preset("llama3-405b"), tp=8, pp=16, dp=768, global_batch=12288,
                             virtual_stages=4)),
    }
    for name, (design, workload) in examples.items():
        design.workload = workload
        save_project(design, HERE / f"{name}.json")
        print(f"wrote {name}.json")
    # several workloads on one design: its workloads and partitions are set in the builder
    save_project(train_and_serve(catalog), HERE / "train-and-serve.json")
    print("wrote train-and-serve.json")


if __name__ == "__main__":
    main()
