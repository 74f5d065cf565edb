"""The first preset offered for a kind is one the design can run (issue 25)."""

from core.catalog import default_catalog
from core.evaluate import evaluate
from core.generators import FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode
from core.inference_workload import list_inference_presets, load_inference_preset
from core.preset_choice import first_that_runs


def _inference_presets():
    return [(name, load_inference_preset(name)) for name in list_inference_presets()]


def test_on_h100_the_first_inference_preset_offered_is_one_that_fits_in_memory():
    catalog = default_catalog()
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog)
    presets = _inference_presets()
    # DeepSeek-R1's weights do not fit 8 H100s (85.5 GB each): the first by name cannot run.
    first = presets[0][0]
    design.workload = presets[0][1]
    assert first.startswith("deepseek-r1") and evaluate(design, catalog).cannot_run
    chosen = first_that_runs(design, catalog, presets)
    assert chosen != first
    design.workload = dict(presets)[chosen]
    assert not evaluate(design, catalog).cannot_run


def test_where_the_first_preset_runs_it_is_the_one_offered():
    catalog = default_catalog()
    nvl72 = generate_supernode(SupernodeOptions("GB200-NVL72", 1), catalog)
    # GB200 has no int8 rate in the catalog: the int8 preset cannot run, the FP8 one (listed
    # after it) can, and is offered before Llama, which comes later still.
    presets = _inference_presets()
    assert [name for name, _ in presets][:2] == ["deepseek-r1-int8-serve", "deepseek-r1-serve"]
    assert first_that_runs(nvl72, catalog, presets) == "deepseek-r1-serve"


def test_when_none_runs_the_first_is_offered_and_without_candidates_none():
    catalog = default_catalog()
    one_server = generate_fat_tree(FatTreeOptions(8, "DGX-H100", "QM9700"), catalog)
    r1 = [(name, w) for name, w in _inference_presets() if name.startswith("deepseek-r1")]
    assert first_that_runs(one_server, catalog, r1) == r1[0][0]
    assert first_that_runs(one_server, catalog, []) is None


def test_a_new_service_is_offered_the_first_preset_that_serves_on_the_gpus_it_starts_with():
    """A service starts on its preset's own deployment size: DeepSeek-R1 INT8 is a 384-GPU
    disaggregated deployment and R1 FP8 does not fit 8 H100s (98.9 GB of weights per GPU),
    Llama 3.1 70B on 8 H100s serves."""
    from core.assumptions.inference import InferenceAssumptions
    from core.preset_choice import first_service_that_runs

    catalog = default_catalog()
    fabric = evaluate(generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog),
                      catalog).topology.fabric
    presets = _inference_presets()
    assert [name for name, _ in presets][:2] == ["deepseek-r1-int8-serve", "deepseek-r1-serve"]
    assert first_service_that_runs(fabric, InferenceAssumptions(), presets,
                                   lambda w: w.deployment.gpus) == "llama31-70b-serve"
    # none serves: the first by name, whose panels then say why
    assert first_service_that_runs(fabric, InferenceAssumptions(), presets[:2],
                                   lambda w: w.deployment.gpus) == "deepseek-r1-int8-serve"
    assert first_service_that_runs(fabric, InferenceAssumptions(), [], lambda w: 8) is None
