"""The user guide's Python API page runs as written (docs/guide/python-api.md, issue 25)."""

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "guide" / "python-api.md"


def test_the_python_api_example_runs_and_says_what_the_page_promises(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(tmp_path)  # it saves a project file
    namespace: dict = {}
    exec(compile(blocks[0], str(PAGE), "exec"), namespace)
    out = capsys.readouterr().out
    assert "fitted to 2,048 GPUs" in out and "2,048 GPUs, MFU" in out
    comparison = namespace["comparison"]
    assert comparison.names == ("2,048 x DGX-H100 on QM9700 (2-tier)", "H200 servers")
    # H200's larger, faster memory: the same job trains faster on the same fabric, at a price.
    assert "higher MFU" in comparison.summary[1] and "more hardware cost" in comparison.summary[1]
    assert (tmp_path / "h200.json").is_file()
    assert namespace["markdown"].startswith("# Comparison")
