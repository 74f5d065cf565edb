"""Project files: round trip, atomic save, and one-line errors naming the JSON path."""

import json
import os
import tracemalloc

import pytest

from core.assumptions import Assumptions
from core.analysis.power import PowerAssumptions
from core.errors import ProjectFileError
from core.generators import FatTreeOptions, generate_fat_tree
from core.project import FORMAT_VERSION, design_to_dict, load_project, save_project
from core.workload import Parallelism, Workload, ModelSpec


def sample(catalog):
    design = generate_fat_tree(
        FatTreeOptions(1024, "DGX-H100", "QM9700", storage="AI400X2", storage_nodes=4), catalog)
    design.workload = Workload("w", ModelSpec(4, 512, 2048, 8), Parallelism(tp=8, dp=4, global_batch=64))
    design.assumptions = Assumptions(power=PowerAssumptions(pue=1.2))
    return design


def test_save_then_load_gives_an_equal_design(tmp_path, catalog):
    design = sample(catalog)
    path = tmp_path / "p.json"
    save_project(design, path)
    loaded = load_project(path, catalog)
    assert loaded.content_equal(design)
    assert design_to_dict(loaded) == design_to_dict(design)


def test_a_saved_file_has_one_line_per_component_and_link(tmp_path, catalog):
    # A file with 1.5 million links reads and diffs line by line; blocks and settings stay
    # indented as json.dumps(indent=1) writes them.
    design = sample(catalog)
    path = tmp_path / "p.json"
    save_project(design, path)
    text = path.read_text()
    data = design_to_dict(design)
    assert json.loads(text) == data
    lines = text.splitlines()
    components = [line for line in lines if '"type": "component"' in line]
    links = [line for line in lines if line.lstrip().startswith('{"id": ')]
    assert len(components) == sum(1 for _ in design.root.iter_nodes())
    assert len(links) == len(design.root.links) + sum(len(b.links) for _, b in design.root.iter_blocks())
    assert all(json.loads(line.strip().rstrip(",")) for line in components + links)
    assert lines[:3] == ["{", ' "format": "cluster-designer.project",', f' "version": {FORMAT_VERSION},']
    assert text.endswith("}\n")
    assert '"assumptions": {\n  "power": {\n   "pue": 1.2\n  }\n }' in text


def test_only_changed_assumptions_are_stored(tmp_path, catalog):
    path = tmp_path / "p.json"
    save_project(sample(catalog), path)
    raw = json.loads(path.read_text())
    assert raw["assumptions"] == {"power": {"pue": 1.2}}


def test_100k_gpu_project_is_small_on_disk(tmp_path, catalog):
    design = generate_fat_tree(FatTreeOptions(100_000, "DGX-H100", "SN5600"), catalog)
    path = tmp_path / "big.json"
    save_project(design, path)
    assert path.stat().st_size < 1_000_000
    assert load_project(path, catalog).content_equal(design)


def test_failed_save_leaves_the_old_file_intact(tmp_path, catalog, monkeypatch):
    path = tmp_path / "p.json"
    save_project(sample(catalog), path)
    before = path.read_bytes()

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(ProjectFileError, match="cannot save"):
        save_project(sample(catalog), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["p.json"]


def _write(tmp_path, data) -> str:
    path = tmp_path / "bad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def _valid(tmp_path, catalog) -> dict:
    return design_to_dict(sample(catalog))


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d.update(version=FORMAT_VERSION + 1), "newer Cluster Designer"),
    (lambda d: d.update(format="something-else"), r"\$.format"),
    (lambda d: d["design"]["children"][0].update(count=0), r"\$.design.children\[0\].count: must be at least 1"),
    (lambda d: d["design"]["children"][0]["children"][0].update(catalog_id="NOPE"),
     r"\$.design.children\[0\].children\[0\].catalog_id: unknown component id 'NOPE'"),
    (lambda d: d["design"]["links"][0].update(b="ghost"), r"\$.design.links\[0\].b: no component 'ghost'"),
    (lambda d: d["design"]["links"][0].update(kind="magic"), r"\$.design.links\[0\].kind"),
    (lambda d: d["design"].update(colour="red"), r"\$.design.colour: unknown key"),
    (lambda d: d["workload"]["model"].update(layers=-1), r"\$.workload.model.layers"),
    (lambda d: d["workload"]["parallelism"].update(tp="eight"), r"\$.workload.parallelism.tp"),
    (lambda d: d.update(assumptions={"power": {"pue": "high"}}), r"\$.assumptions.power.pue"),
    (lambda d: d.update(assumptions={"power": {"nonsense": 1}}), r"\$.assumptions.power.nonsense"),
    # Bounds declared on the assumption fields (core.settings): path, value and allowed range.
    (lambda d: d.update(assumptions={"power": {"pue": 0.9}}),
     r"\$\.assumptions\.power\.pue: 0\.9 is below the minimum 1\.0 \(allowed 1\.0 to 3\.0\)$"),
    (lambda d: d.update(assumptions={"reliability": {"checkpoint_mode": "fast"}}),
     r'\$\.assumptions\.reliability\.checkpoint_mode: "fast" is not one of "async", "sync"'),
    (lambda d: d.update(assumptions={"network": {"nic_efficiency": 1.5}}),
     r"\$\.assumptions\.network\.nic_efficiency: 1\.5 is above the maximum 1\.0"),
])
def test_invalid_files_name_the_json_path(tmp_path, catalog, mutate, message):
    data = _valid(tmp_path, catalog)
    mutate(data)
    with pytest.raises(ProjectFileError, match=message) as info:
        load_project(_write(tmp_path, data), catalog)
    assert "\n" not in str(info.value)


def test_invalid_json_names_line(tmp_path, catalog):
    with pytest.raises(ProjectFileError, match="invalid JSON at line 2"):
        load_project(_write(tmp_path, '{\n  "format": oops}'), catalog)


def test_missing_file(tmp_path, catalog):
    with pytest.raises(ProjectFileError, match="no such file"):
        load_project(tmp_path / "missing.json", catalog)


def test_binary_file(tmp_path, catalog):
    path = tmp_path / "x.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ProjectFileError, match="not a text"):
        load_project(path, catalog)


def test_loading_a_small_file_allocates_about_its_size(tmp_path, catalog):
    # The reader once asked for the size limit (512 MiB) up front on every load: under a memory
    # cap (or on a small machine) opening a 10 KB project could fail.
    path = tmp_path / "p.json"
    save_project(sample(catalog), path)
    tracemalloc.start()
    try:
        load_project(path, catalog)
        peak_bytes = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak_bytes < 20 * 2**20
