"""One shape for analyses (issue 24): each analysis is a registered unit of core/units.py, run
in order by core/evaluate.py, whose sections are the evaluation JSON; a partition is its
cut-down design through the same pipeline."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from core.assumptions import Assumptions, PowerAssumptions
from core.errors import DesignError
from core.evaluate import evaluate, evaluation_to_json
from core.evaluation import Evaluation
from core.operations import RemoveItems
from core.project import load_project
from core.units import CUT_UNITS, SECTIONS, UNITS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "resources" / "examples"


def test_every_unit_is_given_only_what_ran_before_it():
    done: set[str] = set()
    for unit in UNITS:
        assert set(unit.inputs) <= done, f"{unit.name} needs {set(unit.inputs) - done} first"
        done.add(unit.name)
    assert len(done) == len(UNITS)  # one name each


def test_every_unit_reads_a_group_of_the_project_assumptions():
    groups = {type(getattr(Assumptions(), f.name)) for f in dataclasses.fields(Assumptions)}
    for unit in UNITS:
        assert unit.assumptions is None or unit.assumptions in groups, unit.name


def test_every_unit_is_a_field_of_the_evaluation():
    fields = {f.name for f in dataclasses.fields(Evaluation)}
    assert {unit.name for unit in UNITS} <= fields


@pytest.mark.parametrize("example", ["train-and-serve.json", "dgx-h100-superpod-4su.json"])
def test_the_evaluation_json_is_the_sections_of_the_units_in_the_contracts_order(example, catalog):
    ev = evaluate(load_project(EXAMPLES / example, catalog), catalog)
    written = [key for unit in UNITS for key in unit.to_json(ev)]
    assert len(written) == len(set(written)), "a section written by two units"
    assert set(written) <= set(SECTIONS)
    assert list(evaluation_to_json(ev)) == list(SECTIONS)


def test_a_partition_is_its_cut_down_design_evaluated_alone(catalog):
    """The serving partition of train-and-serve (8 GB200 NVL72 racks) has the GPUs, fabric,
    compute power and compute capex of the design without the training blocks, evaluated on
    its own: the same pipeline, not a second one."""
    design = load_project(EXAMPLES / "train-and-serve.json", catalog)
    serve = evaluate(design, catalog).partitions.services[0]
    cut = design.snapshot()
    cut.services, cut.workload_partition, cut.workload = (), None, None
    cut.apply(RemoveItems("", ("su",)))
    alone = evaluate(cut, catalog)
    assert serve.gpus == alone.counts.gpus == 8 * 72
    assert serve.fabric == alone.topology.fabric
    # 8 racks at the catalog's 120 kW nameplate and 3.0 M$ each (GB200-NVL72)
    assert serve.compute_it_kw == alone.power.by_kind_kw["compute"] == pytest.approx(960.0)
    assert serve.compute_capex_usd == alone.cost.compute_capex_usd == pytest.approx(24e6)
    assert [unit.name for unit in CUT_UNITS] == ["power", "cost"]


def test_reading_a_project_loads_no_analysis():
    """The assumptions sit below the analyses: core.project (and the design it builds, typed
    assumptions included) imports none of core/analysis (before issue 24 it loaded 23 modules)."""
    code = ("import sys, core.project; "
            "print(sorted(m for m in sys.modules if m.startswith('core.analysis')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_design_takes_only_an_assumptions_object(catalog):
    design = load_project(EXAMPLES / "dgx-h100-superpod-4su.json", catalog)
    with pytest.raises(DesignError, match="^assumptions: expected an Assumptions object"):
        design.assumptions = PowerAssumptions()
    design.assumptions = Assumptions(power=PowerAssumptions(pue=1.3))
    assert evaluate(design, catalog).power.pue == 1.3
