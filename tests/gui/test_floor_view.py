"""The Floor view: it shows the evaluated site, a rack moved there is one undo step that the
evaluation follows, and a clicked rack selects what it holds on the canvas."""

from __future__ import annotations


def test_moving_a_rack_is_one_undo_step_and_reevaluates(window, small_design):
    window.load_design(small_design, None)
    result = window.evaluate_now()
    floor = window.floor_view
    floor.update_result(result)
    assert floor.item.site.racks == result.evaluation.site.racks
    before = result.evaluation.site.cable_length_m["max"]
    floor.rack_moved.emit(1, 1, 20)  # as a drag of rack 1 to the end of row 1
    assert window.document.design.site is not None
    assert window.document.undo_stack.count() == 1
    moved = window.evaluate_now().evaluation.site
    assert moved.placement == "drawn"
    assert moved.layout.rack_slot[0] == 19
    assert moved.cable_length_m["max"] != before
    window.document.undo_stack.undo()
    assert window.document.design.site is None


def test_a_clicked_rack_selects_its_contents_on_the_canvas(window, small_design):
    window.load_design(small_design, None)
    window.floor_view.update_result(window.evaluate_now())
    site = window.floor_view.item.site
    compute = int((site.template.rack_class == 0).argmax())
    window.floor_view._clicked(compute)
    selected = window.scene.selected_ids()
    assert selected  # the block holding the rack's servers
    # and the canvas selection lights up the racks holding it
    assert window.floor_view.item.highlight[compute]


def test_the_floor_tab_exports_the_plan_as_pdf_and_svg(window, small_design, tmp_path):
    window.load_design(small_design, None)
    floor = window.floor_view
    assert not floor.export.isEnabled()  # nothing placed yet
    floor.update_result(window.evaluate_now())
    assert floor.export.isEnabled()
    pdf = floor.export_to(str(tmp_path / "plan"))  # no extension: a PDF
    assert pdf.suffix == ".pdf"
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-1.") and b"/Type /Page\n" in data.replace(b"/Type /Pages", b"")
    floor.colour.setCurrentIndex(1)  # coloured by cooling, as shown
    svg = floor.export_to(str(tmp_path / "plan.svg")).read_text()
    assert svg.startswith("<svg") and "#9ecae1" in svg  # the air-cooled racks' colour


def test_raising_the_floor_tab_makes_room_for_the_plan(window, small_design, qtbot):
    """Tabbed with the Warnings the dock had their 110 px: the plan was a 40 px strip."""
    from designer.site.floor_view import FLOOR_DOCK_MIN_PX

    window.resize(1600, 1000)
    window.load_design(small_design, None)
    window.floor_view.update_result(window.evaluate_now())
    assert window.floor_dock.height() < FLOOR_DOCK_MIN_PX  # behind the Warnings, their height
    scale = window.floor_view.view.transform().m11()
    window.floor_dock.raise_()
    qtbot.waitUntil(lambda: window.floor_dock.height() >= FLOOR_DOCK_MIN_PX, timeout=2000)
    assert window.floor_view.height() > 200
    # the plan, fitted while it was a strip, grows with the room it now has
    assert window.floor_view.view.transform().m11() > 1.5 * scale
