"""The summary the canvas draws for a block too big to draw item by item: groups of identical
children and bundles of links between groups, with the link and cable totals a user reads on
the canvas. It is kept up to date edit after edit from what the last edit left unchanged; after
any edits it must equal a summary made from scratch and a plain count over the links."""

from collections import Counter

from hypothesis import given, strategies as st

from core.catalog import load_catalog
from core.errors import DesignError
from core.generators import FatTreeOptions, generate_fat_tree
from core.model import Link, Node
from core.operations import AddLink, AddNode, Group, MoveItems, RemoveLink, RemoveNode, SetProperty
from designer.canvas.aggregate import BlockSummarizer
from tests.separate_design import draw_separately

CATALOG = load_catalog(include_user=False)


def _kind_of(catalog_id: str) -> tuple[str, str]:
    spec = CATALOG.get(catalog_id)
    return spec.kind, spec.name


def _imported(gpus: int = 256):
    return draw_separately(generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", "QM9700"), CATALOG), CATALOG)


def _by_hand(block) -> dict[tuple[frozenset, str], tuple[int, int]]:
    """(the two groups' keys, kind) -> (links, cables), counted link by link."""
    def group(child_id):
        child = block.children[child_id]
        return f"component:{child.catalog_id}:{child.tier}" if isinstance(child, Node) else f"block:{child.role}:"

    totals: Counter = Counter()
    cables: Counter = Counter()
    for link in block.links:
        a, b = link.a.split("/", 1)[0], link.b.split("/", 1)[0]
        if a == b:
            continue
        key = (frozenset((group(a), group(b))), link.kind)
        totals[key] += 1
        cables[key] += link.count
    return {key: (totals[key], cables[key]) for key in totals}


def _as_counts(summary) -> dict[tuple[frozenset, str], tuple[int, int]]:
    return {(frozenset((summary.groups[b.a].key, summary.groups[b.b].key)), b.kind): (b.links, b.cables)
            for b in summary.bundles}


def test_an_imported_fabric_is_three_groups_and_two_bundles_with_every_cable():
    design = _imported()
    root = design.root
    summary = BlockSummarizer(_kind_of).summarize(root)
    titles = {(g.catalog_id, g.tier): len(g.members) for g in summary.groups}
    assert titles == {("DGX-H100", ""): 32, ("QM9700", "leaf"): 8, ("QM9700", "spine"): 4}
    assert sum(b.cables for b in summary.bundles) == sum(link.count for link in root.links)
    assert sum(b.links for b in summary.bundles) == len(root.links)
    assert {b.kind for b in summary.bundles} == {"scale-out"} and not any(b.mixed for b in summary.bundles)
    assert _as_counts(summary) == _by_hand(root)
    server = summary.groups[0].members[5]
    assert sorted(root.links[p].a for p in summary.member_links(server)) == [server] * 8  # its 8 rails


_EDITS = ("set_link", "set_node", "remove_link", "remove_node", "add_link", "add_node", "move", "group")


@st.composite
def _edit(draw, design):
    root = design.root
    children, links = list(root.children), root.links
    kind = draw(st.sampled_from(_EDITS))
    if kind == "set_link":
        name, value = draw(st.sampled_from([("count", 3), ("kind", "storage"), ("speed_gbit_s", 200.0)]))
        return SetProperty("", name, value, draw(st.sampled_from(links)).id)
    if kind == "set_node":
        name, value = draw(st.sampled_from([("tier", "spine"), ("catalog_id", "SN5600"), ("count", 4)]))
        return SetProperty(draw(st.sampled_from(children)), name, value)
    if kind == "remove_link":
        return RemoveLink("", draw(st.sampled_from(links)).id)
    if kind == "remove_node":
        return RemoveNode("", draw(st.sampled_from(children)))
    if kind == "add_link":
        a, b = draw(st.lists(st.sampled_from(children), min_size=2, max_size=2, unique=True))
        return AddLink("", Link(f"new{len(links)}", a, b, count=2), draw(st.integers(0, len(links))))
    if kind == "add_node":
        return AddNode("", Node(f"n{len(children)}", "AI400X2"), draw(st.integers(0, len(children))))
    if kind == "move":
        return MoveItems("", {draw(st.sampled_from(children)): (1.0, 2.0)})
    members = draw(st.lists(st.sampled_from(children), min_size=1, max_size=3, unique=True))
    return Group("", tuple(members), "g")


@given(st.data())
def test_after_any_edits_and_undos_the_kept_summary_equals_a_fresh_one(data):
    design = _imported(128)
    summarizer = BlockSummarizer(_kind_of)
    summarizer.summarize(design.root)
    undo = []
    for _ in range(data.draw(st.integers(1, 8))):
        if undo and data.draw(st.booleans()):
            design.apply(undo.pop())
        else:
            try:
                undo.append(design.apply(data.draw(_edit(design))))
            except DesignError:
                continue
        kept = summarizer.summarize(design.root)
        fresh = BlockSummarizer(_kind_of).summarize(design.root)
        assert [(g.key, g.members, g.units) for g in kept.groups] == [(g.key, g.members, g.units) for g in fresh.groups]
        assert kept.bundles == fresh.bundles
        assert _as_counts(kept) == _by_hand(design.root)
        for child in list(design.root.children)[:5]:
            assert kept.member_links(child).tolist() == fresh.member_links(child).tolist()
