"""The window says when a design cannot be built as drawn (issue 22): a banner above the canvas
and the Overview's first row, gone again once the design is valid."""

from core.model import Block, Design, Link, Node


def _evaluated(window, qtbot, design):
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    return window.evaluator.last


def _over_ported() -> Design:
    """36 links of 200G on a DGX B300's 8 ConnectX-8 ports (4 each at most): NODE_PORTS_EXCEEDED."""
    root = Block("root", "over")
    root.children["n"] = Node("n", "DGX-B300", 1, "node", x=0, y=0)
    root.children["s"] = Node("s", "TH6", 1, "switch", x=0, y=100, tier="leaf")
    root.links.append(Link("l", "n", "s", "scale-out", 200.0, 36, 10.0))
    return Design("over", root)


def test_an_invalid_design_gets_a_banner_and_an_overview_row(window, qtbot, small_design):
    result = _evaluated(window, qtbot, _over_ported())
    assert not result.evaluation.valid
    banner = window.validity_banner
    assert banner.isVisible()
    assert "cannot be built or run as drawn" in banner.text()
    assert "NODE_PORTS_EXCEEDED" in banner.text()
    # the banner sits above the canvas, the Overview's first row says it too
    assert banner.geometry().bottom() <= window.view.geometry().top()
    assert window.overview_panel.value("Design").startswith("NOT VALID")

    result = _evaluated(window, qtbot, small_design)
    assert result.evaluation.valid
    assert not banner.isVisible()
    assert "Design" not in window.overview_panel._values
