"""Design generators: folded-Clos fat-trees (with islands and storage) and super-node clusters."""

from core.generators.fat_tree import FatTreeOptions, generate_fat_tree
from core.generators.supernode import SupernodeOptions, generate_supernode

__all__ = ["FatTreeOptions", "generate_fat_tree", "SupernodeOptions", "generate_supernode"]
