"""Files bench/fuzz.py found crashing the engine, reduced to the one edit that did it."""

import json
import math
from pathlib import Path

import pytest
from scipy import special

from core.analysis.reliability import spares_for
from core.errors import ProjectFileError
from core.evaluate import evaluate
from core.project import load_project

EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "examples"


def _mutant(tmp_path, example: str, edit) -> Path:
    data = json.loads((EXAMPLES / example).read_text())
    edit(data)
    path = tmp_path / "mutant.json"
    path.write_text(json.dumps(data))
    return path


def test_fewer_leaf_cables_than_servers_has_no_single_homed_crash(tmp_path, catalog):
    # 289 nodes per SU on cables sized for 64: a node's reach to a spine group rounds to 0
    def edit(d):
        d["design"]["children"][1]["children"][0]["children"][0]["count"] = 289
    design = load_project(_mutant(tmp_path, "h100-100k.json", edit), catalog)
    assert evaluate(design, catalog).spof_units >= 0


def test_a_gemm_table_with_columns_of_different_lengths_is_refused(tmp_path, catalog):
    def edit(d):
        d["assumptions"] = {"performance": {"gemm_efficiency": [0.1, 0.6, 0.9]}}
    with pytest.raises(ProjectFileError, match=r"gemm_efficiency: 3 entries, but gemm_efficiency_gflop has 4"):
        load_project(_mutant(tmp_path, "dgx-h100-superpod-4su.json", edit), catalog)


@pytest.mark.parametrize("mu, target", [(0.3, 0.99), (5.0, 0.9), (123.4, 0.999), (1e4, 0.5)])
def test_spares_for_is_the_smallest_k_reaching_the_target(mu, target):
    k = spares_for(mu, target)
    assert special.pdtr(k, mu) >= target and (k == 0 or special.pdtr(k - 1, mu) < target)


def test_spares_for_a_huge_expected_failure_count_answers_at_once():
    # the old search allocated a window of ~16 sqrt(mu) values: 10**12 failures meant 10**7+
    assert spares_for(1e20, 0.99) == pytest.approx(1e20, rel=1e-6)


@pytest.mark.parametrize("token", ["Infinity", "-Infinity", "1e999", "NaN"])
def test_a_non_finite_number_in_metadata_is_refused_not_saved(tmp_path, token):
    path = tmp_path / "mutant.json"
    text = (EXAMPLES / "dgx-h100-superpod-4su.json").read_text()
    path.write_text(text.replace('"metadata": {', f'"metadata": {{"v": {token}, ', 1))
    with pytest.raises(ProjectFileError, match=r"\$\.metadata\.v: expected a finite number"):
        load_project(path)


def test_a_price_of_four_hundred_digits_is_refused_naming_the_field(tmp_path):
    # math.isfinite(10**400) raises OverflowError: the range is checked first
    from core.catalog import load_catalog_file
    from core.errors import CatalogError
    entry = json.loads((EXAMPLES.parent / "catalog" / "switches.json").read_text())["components"][0]
    entry["price"]["usd"] = 10**400
    path = tmp_path / "user.json"
    path.write_text(json.dumps({"components": [entry]}))
    with pytest.raises(CatalogError, match=r"price\.usd"):
        load_catalog_file(path)


def test_a_bad_checkpoint_tier_names_its_json_path(tmp_path, catalog):
    def edit(d):
        d["assumptions"] = {"storage": {"checkpoint_tiers": {"host-memory": [1.5, 2.0]}}}
    with pytest.raises(ProjectFileError, match=r"\$\.assumptions\.storage\.checkpoint_tiers\.host-memory"):
        load_project(_mutant(tmp_path, "gb200-nvl72-su.json", edit), catalog)


@pytest.mark.parametrize("tokens", [5e-324, 1e-300, 1e-12])
def test_a_vanishing_training_token_count_has_no_cost_per_token_not_a_crash(tmp_path, catalog, tokens):
    # 5e-324 / 1e6 underflows to 0: the cost per million tokens divided by zero (issue 22)
    def edit(d):
        d["workload"]["training_tokens"] = tokens
    design = load_project(_mutant(tmp_path, "dgx-h100-superpod-4su.json", edit), catalog)
    cost = evaluate(design, catalog).cost
    per_token = cost.usd_per_million_tokens_trained
    assert per_token is None or math.isfinite(per_token)
    if per_token is None:
        assert "not a finite number" in cost.null_reasons["usd_per_million_tokens_trained"]
