"""One sweep combination: its recipe -> the design -> its evaluation -> one results row.

A recipe is plain JSON (it travels to worker processes and into the results CSV)::

    {"template": "fat-tree", "options": {"gpus": 16384, "server": "DGX-H100", ...},
     "workload": "llama3-405b" | "deepseek-r1-serve" | {workload JSON} | null,
     "workload_label": "llama3-405b", "keep_preset_layout": false, "stack": "nemo-2024" | null,
     "assumptions": {"power.pue": 1.3}}

``design_from_recipe`` rebuilds exactly the design a row was computed from: the generator with
those options (unlisted options at the generator's defaults), the workload (a training preset
fitted to the design's GPUs the way ``generate --workload`` fits it, an inference preset or a
workload object of either kind as written: an inference deployment "auto" is searched again
by the evaluation), the stack's performance assumptions and then the dotted assumption values.
"""

from __future__ import annotations

from typing import Any

from core.assumptions import Assumptions, assumptions_from_dict, assumptions_to_dict
from core.catalog import Catalog, default_catalog
from core.errors import DesignError
from core.evaluate import evaluate, evaluation_to_json
from core.flatten import flatten
from core.generators import FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode
from core.inference_workload import any_workload_from_dict, list_inference_presets, load_inference_preset
from core.metrics import METRICS, metric_value
from core.model import Design
from core.preset_fit import fit_to_design
from core.stacks import PRESETS as STACK_PRESETS
from core.stacks import with_stack
from core.sweep.spec import option_problem, required_options
from core.workload import list_presets, load_preset

GENERATORS = {"fat-tree": (FatTreeOptions, generate_fat_tree),
              "supernode": (SupernodeOptions, generate_supernode)}
RECIPE_KEYS = ("template", "options", "workload", "workload_label", "keep_preset_layout", "stack",
               "assumptions")


class RecipeError(DesignError):
    """A recipe (read back from a results file) does not describe a design."""


def check_recipe(recipe: Any) -> None:
    """Refuse a recipe that was not written by a sweep (a results file edited by hand) with
    one line naming the key, before any generator sees it."""
    if not isinstance(recipe, dict) or set(recipe) != set(RECIPE_KEYS):
        raise RecipeError(f"recipe: expected an object with the keys {', '.join(RECIPE_KEYS)}")
    if not isinstance(recipe["template"], str) or recipe["template"] not in GENERATORS:
        raise RecipeError(f"recipe.template: {recipe['template']!r} is not one of {', '.join(GENERATORS)}")
    options_class = GENERATORS[recipe["template"]][0]
    options = recipe["options"]
    if not isinstance(options, dict):
        raise RecipeError("recipe.options: expected an object")
    for name, value in options.items():
        if problem := option_problem(options_class, name, value):
            raise RecipeError(f"recipe.options.{name}: {problem}")
    if missing := [n for n in required_options(options_class) if n not in options]:
        raise RecipeError(f"recipe.options: missing {', '.join(missing)}")
    if not isinstance(recipe["workload"], (str, dict, type(None))):
        raise RecipeError("recipe.workload: expected a preset name, a workload object or null")
    if isinstance(recipe["workload"], str) and recipe["workload"] not in {*list_presets(),
                                                                          *list_inference_presets()}:
        raise RecipeError(f"recipe.workload: unknown preset {recipe['workload']!r}")
    if not isinstance(recipe["keep_preset_layout"], bool):
        raise RecipeError("recipe.keep_preset_layout: expected true or false")
    if recipe["stack"] is not None and (not isinstance(recipe["stack"], str)
                                        or recipe["stack"] not in STACK_PRESETS):
        raise RecipeError(f"recipe.stack: unknown software stack {recipe['stack']!r}")
    assumptions = recipe["assumptions"]
    if not isinstance(assumptions, dict) or any(
            not isinstance(k, str) or k.count(".") != 1 for k in assumptions):
        raise RecipeError("recipe.assumptions: expected an object of section.field names")


def _merge(into: dict, extra: dict) -> dict:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value
    return into


def recipe_assumptions(recipe: dict[str, Any]) -> Assumptions:
    """The stack's assumptions (the engine's defaults without one), then the dotted values."""
    base = with_stack(None, recipe["stack"]) if recipe.get("stack") else Assumptions()
    changed = assumptions_to_dict(base, only_changed=True)
    for dotted, value in recipe.get("assumptions", {}).items():
        section, name = dotted.split(".")
        _merge(changed, {section: {name: value}})
    return assumptions_from_dict(changed)


def design_from_recipe(recipe: dict[str, Any], catalog: Catalog | None = None) -> Design:
    """The design of one combination, with its workload and assumptions embedded (so saving
    it gives a project that evaluates to the row). Raises DesignError when the generator or
    the workload refuses the combination."""
    check_recipe(recipe)
    catalog = catalog or default_catalog()
    options_class, generate = GENERATORS[recipe["template"]]
    design = generate(options_class(**recipe["options"]), catalog)
    ref = recipe.get("workload")
    if isinstance(ref, str) and ref in list_inference_presets():
        design.workload = load_inference_preset(ref)  # its deployment says how many GPUs serve
    elif isinstance(ref, str):
        preset = load_preset(ref)
        design.workload = preset if recipe.get("keep_preset_layout") else \
            fit_to_design(preset, flatten(design, catalog).gpus, ref)[0]
    elif ref is not None:
        design.workload = any_workload_from_dict(ref, "recipe.workload")
    design.assumptions = recipe_assumptions(recipe)
    return design


def _cannot_run_reason(evaluation: dict[str, Any]) -> str | None:
    """Why the main workload cannot run (a training job, or a serving workload no deployment of
    which fits), from the section of its kind."""
    for section in ("performance", "inference"):
        results = evaluation.get(section) or {}
        reasons = results.get("cannot_run") or []
        if results.get("runs") is False and reasons:
            return "workload does not run: " + "; ".join(r["message"] for r in reasons)
    return None


def _error(evaluation: dict[str, Any]) -> str | None:
    """Why the row is not a buildable, running design: its workload cannot run, or (issue 22)
    an error-severity warning makes the design invalid; the row then stays off the front."""
    reason = _cannot_run_reason(evaluation)
    if reason is not None or evaluation.get("valid", True):
        return reason
    return "design not valid: " + "; ".join(
        f"{r['code']}: {r['message']}" for r in evaluation.get("invalid_reasons") or [])


def _meets_slo(evaluation: dict[str, Any]) -> bool | None:
    """Whether the main serving workload meets its TTFT and TPOT targets; None without one (or
    when it cannot run)."""
    meets = (evaluation.get("inference") or {}).get("meets_slo")
    return meets if isinstance(meets, bool) else None


def evaluate_recipe(recipe: dict[str, Any]) -> dict[str, Any]:
    """``{"metrics": {path: value or None}, "error": reason or None, "meets_slo": bool or None}``
    for one combination.

    A combination the generator or the engine refuses has no metrics and its one-line reason;
    one whose workload cannot run keeps the fabric's metrics (the job's are None, as in the
    evaluation JSON) and says why in ``error``. ``meets_slo`` is the serving workload's verdict
    (None without one). Any other exception is a bug in the engine, but one combination must
    not lose the others' results: it is reported the same way."""
    try:
        evaluation = evaluation_to_json(evaluate(design_from_recipe(recipe)))
    except DesignError as exc:
        return {"metrics": {}, "error": str(exc), "meets_slo": None}
    except Exception as exc:  # noqa: BLE001 - see above: recorded on its row, not lost
        return {"metrics": {}, "error": f"internal error ({type(exc).__name__}: {exc})",
                "meets_slo": None}
    return {"metrics": {m.path: metric_value(evaluation, m) for m in METRICS},
            "error": _error(evaluation), "meets_slo": _meets_slo(evaluation)}


def evaluate_recipes(recipes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``evaluate_recipe`` of each: one task of a pool or cluster is a chunk of combinations,
    so a task's overhead (pickling, scheduling) is paid once per chunk, not per design."""
    return [evaluate_recipe(recipe) for recipe in recipes]
