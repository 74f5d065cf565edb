"""Connected components in numpy (core/components.py), which the topology's domains rest on,
against networkx's on open-ended graphs."""

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from core.components import connected_component_labels


@st.composite
def graphs(draw):
    units = draw(st.integers(0, 60))
    if units == 0:
        return 0, [], []
    ends = st.integers(0, units - 1)
    edges = draw(st.lists(st.tuples(ends, ends), max_size=120))
    return units, [a for a, _ in edges], [b for _, b in edges]


@settings(max_examples=200, deadline=None)
@given(graphs())
def test_two_units_share_a_label_exactly_when_networkx_finds_them_connected(graph):
    units, src, dst = graph
    labels = connected_component_labels(units, np.array(src, dtype=np.int64),
                                        np.array(dst, dtype=np.int64))
    g = nx.Graph()
    g.add_nodes_from(range(units))
    g.add_edges_from(zip(src, dst))
    components = list(nx.connected_components(g))
    assert labels.shape == (units,)
    # labels are 0..k-1, one per component, so the domains can be contracted by label
    assert sorted(set(labels.tolist())) == list(range(len(components)))
    for component in components:
        assert len({int(labels[u]) for u in component}) == 1


def test_a_long_shuffled_chain_is_one_component():
    """The worst case for label propagation: hooking with pointer jumping still finishes it."""
    rng = np.random.default_rng(7)
    order = rng.permutation(100_000)
    labels = connected_component_labels(100_000, order[:-1], order[1:])
    assert labels.max() == 0
