"""File → New from Template builds multi-plane and rail-only fabrics, and says why it cannot."""

from __future__ import annotations

from designer.window.wizard import TemplateWizard


def test_wizard_builds_planes_and_names_a_bad_plane_count(qtbot, window):
    wizard = TemplateWizard(window.catalog)
    qtbot.addWidget(wizard)
    fields = wizard.fields("fat-tree")
    fields["planes"].setValue(8)
    wizard.update_preview()
    assert "<b>48</b> switches" in wizard.preview.text()  # 1,024 GPUs: as many as one plane
    plane = dict(wizard.design.root.iter_blocks())["plane"]
    assert (plane.role, plane.count) == ("plane", 8)
    fields["planes"].setValue(3)
    wizard.update_preview()
    assert "does not divide" in wizard.preview.text() and wizard.design is None
    fields["planes"].setValue(1)
    fields["gpus"].setValue(512)
    fields["rail_only"].setChecked(True)
    wizard.update_preview()
    assert dict(wizard.design.root.iter_blocks())["rail"].count == 8
    window.apply_template(wizard.design)
    result = window.evaluate_now()
    assert result.evaluation.planes.rails == 8
    assert window.bandwidth_panel._values["Rails"].text() == "8 rail switches, no spine"
