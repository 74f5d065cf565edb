"""Rebuild the bundled example projects: python resources/examples/build_examples.py

Each example is a generated design with a workload preset whose parallelism is set to fit the
cluster (the presets carry the parallelism of their published runs).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from core.catalog import load_catalog  # noqa: E402
from core.generators import (FatTreeOptions, SupernodeOptions, generate_fat_tree,  # noqa: E402
                             generate_supernode)
from core.project import save_project  # noqa: E402
from core.workload import load_preset, with_parallelism  # noqa: E402


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


if __name__ == "__main__":
    main()
