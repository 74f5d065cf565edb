"""The per-user folders the app reads and writes (settings, recovery drafts, user catalog) and the
screenshot writer: whatever is wrong there, the app warns and carries on, and never crashes."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "examples" / "gb200-nvl72-su.json"


def test_a_screenshot_into_a_missing_folder_is_one_line_and_writes_nothing(tmp_path, capsys, qapp):
    from designer.app import run

    out = tmp_path / "missing" / "shot.png"
    assert run(str(EXAMPLE), screenshot=str(out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot save" in err and "does not exist" in err
    assert not out.parent.exists()
