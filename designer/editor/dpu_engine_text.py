"""The engines of a DPU (or of the DPUs in a server) as Inspector lines (article 003's five
engines, core/dpu_engines.py)."""

from __future__ import annotations

from html import escape

from core.catalog import Catalog, ComponentSpec
from core.catalog_spec import DpuSpec, NodeSpec, engines_of
from core.dpu_engines import ENGINE_TITLES, FIELD_UNITS


def dpu_engine_lines(spec: ComponentSpec, catalog: Catalog) -> list[str]:
    """Rich-text lines: the DPU model (with the server's count), then one line per engine with
    its figures and evidence tag; empty for a component without DPUs."""
    if spec.kind == "dpu":
        dpu, heading = spec, f"<b>Engines</b> of {escape(spec.id)}"
    elif isinstance(spec, NodeSpec) and spec.dpu and spec.dpus and spec.dpu in catalog:
        dpu = catalog.get(spec.dpu)
        heading = f"<b>DPUs</b> {spec.dpus} x {escape(dpu.id)} per unit; engines:"
    else:
        return []
    engines = engines_of(dpu)
    if not engines:
        return [heading, "&nbsp;&nbsp;none listed in the catalog"]
    lines = [heading]
    for name, engine in engines.items():
        figures = [f"{value:,g} {FIELD_UNITS[key]}" for key, value in engine.figures()]
        evidence = f" [{escape(engine.evidence)}]" if engine.evidence is not None else ""
        lines.append(f"&nbsp;&nbsp;{ENGINE_TITLES[name]}: "
                     f"{escape(', '.join(figures)) or 'listed'}{evidence}")
    if isinstance(dpu, DpuSpec) and dpu.offload_cores_freed is not None:
        lines.append(f"&nbsp;&nbsp;{dpu.offload_cores_freed:,g} host cores freed per DPU")
    return lines
