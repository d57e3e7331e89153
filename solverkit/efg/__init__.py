"""The generic extensive-form engine: describe a game as a tree (:class:`TreeGame`), get CFR,
best response and exploitability from numba kernels over its flat arrays."""

from .build import FlatTree, enumerate_tree
from .tree import TreeGame

__all__ = ["FlatTree", "TreeGame", "enumerate_tree"]
