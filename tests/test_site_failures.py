"""Link failure rates by the medium a placed length calls for (core/site/failures.py).

Sources of the factors (S, derived D), cited in core/site/failures.py: pluggable optical
modules MTBF 0.5-1 million device-hours (Meta's ECOC 2025 data via 100gmodules.com); retimer
DSPs 100-500 FIT and driver ICs 50-200 FIT (LuxOptx, "Reliability engineering for 800G optical
modules"); passive DAC MTBF 50 million hours and more (Telewire). The optical link is the
reference's measured 0.02 per 1000 link-days (reliability-power.md §2, HPN 0.019)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from types import SimpleNamespace

import numpy as np

import pytest

from core.analysis.reliability_assumptions import ReliabilityAssumptions
from core.assumptions import Assumptions
from core.evaluate import evaluate, evaluation_to_json
from core.project import load_project
from core.site.cables import Cables
from core.site.failures import RATE_FACTOR, failures_per_day, with_placed_link_rates
from core.site.media import MEDIA
from core.site_spec import SiteSpec

EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "examples"


def cables_of(media: list[str]) -> Cables:
    n = len(media)
    zeros = np.zeros(n, dtype=np.int64)
    return Cables(zeros, zeros, zeros, np.ones(n), np.array([MEDIA.index(m) for m in media],
                                                            dtype=np.int8),
                  np.zeros(n, dtype=bool), np.ones(n))


def test_a_passive_dac_fails_far_less_often_than_an_optical_link():
    # 20 FIT (MTBF 50 M h) against two modules of ~1,333 FIT each (MTBF 0.75 M h): D
    assert RATE_FACTOR["dac"] == pytest.approx((1 / 50e6) / (2 / 0.75e6), rel=0.01)
    # active copper sits between: retimers (AEC) above redrivers (ACC), both below optics
    assert RATE_FACTOR["dac"] < RATE_FACTOR["acc"] < RATE_FACTOR["aec"] < RATE_FACTOR["mmf"]
    assert RATE_FACTOR["mmf"] == RATE_FACTOR["smf"] == RATE_FACTOR["aoc"] == 1.0


def test_failures_per_day_follow_the_links_media():
    per_day = failures_per_day(cables_of(["dac", "dac", "aec", "smf"]), 0.02)
    assert per_day["dac"] == pytest.approx(2 * 0.02 * 0.0075 / 1000)
    assert per_day["aec"] == pytest.approx(0.02 * 0.22 / 1000)
    assert per_day["smf"] == pytest.approx(0.02 / 1000)
    assert per_day["mmf"] == 0.0


class Item:
    def __init__(self, catalog_id, medium, rate=None, overrides=None):
        self.catalog_id, self.kind = catalog_id, "cable"
        # the two fields of a typed CableSpec the rates read
        self.spec = SimpleNamespace(medium=medium, failure_rate_per_1000_days=rate)
        self.overrides = overrides or {}


class Inv:
    def __init__(self, *items):
        self.items = items


def test_copper_cables_take_the_mean_rate_of_their_placed_media():
    # copper runs of 2, 4 and 6 m: DAC, ACC, AEC; the fibre runs stay at the optical link rate
    cables = cables_of(["dac", "acc", "aec", "mmf", "smf"])
    a = with_placed_link_rates(ReliabilityAssumptions(),
                               Inv(Item("DAC", "copper", 0.02), Item("SMF", "fiber", 0.02)), cables)
    assert a.rate_overrides == {"DAC": pytest.approx(0.02 * (0.0075 + 0.09 + 0.22) / 3)}


def test_a_rate_the_user_set_is_kept():
    cables = cables_of(["dac"])
    mine = ReliabilityAssumptions(rate_overrides={"DAC": 0.05})
    assert with_placed_link_rates(mine, Inv(Item("DAC", "copper")), cables) is mine
    on_item = Inv(Item("DAC", "copper", overrides={"failure_rate_per_1000_days": 0.05}))
    assert with_placed_link_rates(ReliabilityAssumptions(), on_item, cables).rate_overrides == {}
    # without a catalog rate, the assumption's link rate is the optical link's
    bare = with_placed_link_rates(ReliabilityAssumptions(link_per_1000_days=0.04),
                                  Inv(Item("DAC", "copper")), cables)
    assert bare.rate_overrides["DAC"] == pytest.approx(0.04 * 0.0075)


def test_nvl72_copper_links_fail_as_passive_dac_once_placed(catalog):
    """hand-drawn-nvl72-x4: its 5,184 NVLink copper links stay inside their racks (DAC), so by
    default they fail at the DAC rate; "cable_lengths": "drawn" gives the per-link figure of
    before the floor plan, and the assumptions the JSON shows are the user's, unchanged."""
    design = load_project(EXAMPLES / "hand-drawn-nvl72-x4.json")
    placed = evaluate(design, catalog)
    design.site = SiteSpec(cable_lengths="drawn")
    drawn = evaluate(design, catalog)
    assert placed.site.links_by_medium["dac"] == 5184
    assert placed.reliability.rate_by_kind["link"] < drawn.reliability.rate_by_kind["link"]
    assert placed.reliability.interruptions_per_day < drawn.reliability.interruptions_per_day
    site = evaluation_to_json(placed)["site"]
    assert site["link_failures_per_day"]["dac"] == pytest.approx(5184 * 0.02 * 0.0075 / 1000,
                                                                 rel=1e-3)
    assert evaluation_to_json(placed)["assumptions"]["reliability"]["rate_overrides"] == {}


def test_optical_designs_keep_their_link_failure_rate(catalog):
    """dgx-h100-superpod-4su is cabled with optics end to end: placing it moves no failure."""
    design = load_project(EXAMPLES / "dgx-h100-superpod-4su.json")
    placed = evaluate(design, catalog)
    design.site = SiteSpec(cable_lengths="drawn")
    drawn = evaluate(design, catalog)
    assert placed.reliability.interruptions_per_day == pytest.approx(
        drawn.reliability.interruptions_per_day)


def test_a_user_rate_for_the_dac_wins_over_the_placed_media(catalog):
    design = load_project(EXAMPLES / "hand-drawn-nvl72-x4.json")
    base = design.assumptions or Assumptions()
    design.assumptions = replace(base, reliability=replace(
        base.reliability, rate_overrides={"DAC-400G": 0.02}))
    placed = evaluate(design, catalog)
    design.site = SiteSpec(cable_lengths="drawn")
    drawn = evaluate(design, catalog)
    assert placed.reliability.rate_by_kind["link"] == pytest.approx(
        drawn.reliability.rate_by_kind["link"])


# --------------------------------------------------------------------------- what is bought


def test_a_bundle_is_bought_per_reach_bracket_never_short(catalog):
    """core/site/bought.py: a bundle drawn once is bought exactly by bracket; a repeated one
    buys every instance the parts of the instance that needs the most (never a part short of a
    run). Two instances of 4 runs: (5, 60, 120, 10) and (5, 5, 5, 5) m."""
    from core.site.bought import bought_at_placed_lengths
    from core.flatten import flatten
    from core.model import Block, Design, Link, Node

    pod = Block("pod", count=2, children={"n": Node("n", "DGX-H100", 1),
                                          "s": Node("s", "QM9700", 1)},
                links=[Link("l", "n", "s", "scale-out", 400.0, 4, 10.0, "fiber")])
    flat = flatten(Design("d", Block("root", children={"pod": pod})), catalog)
    runs = np.array([5.0, 60.0, 120.0, 10.0, 5.0, 5.0, 5.0, 5.0])
    placed = Cables(np.zeros(8, dtype=np.int64), np.zeros(8, dtype=np.int64),
                    np.zeros(8, dtype=np.int64), runs, np.zeros(8, dtype=np.int8),
                    np.zeros(8, dtype=bool), runs * 5)
    bought = bought_at_placed_lengths(flat, placed)
    # ranks: longest runs 120, 60, 10 and 5 m: brackets to 500, 100, 50 and 50 m
    assert sorted(zip(bought.length_m.tolist(), bought.cables.tolist())) == [
        (10.0, 4), (60.0, 2), (120.0, 2)]
    assert int(bought.cables.sum()) == 8 and (bought.owner_instances == 2).all()

