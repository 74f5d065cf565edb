"""The data exports by file extension: what ``export -o FILE`` and File > Export write."""

from __future__ import annotations

from pathlib import Path

from core.atomic_write import atomic_write_text
from core.catalog import Catalog
from core.errors import DesignError
from core.model import Design

DATA_FORMATS = (".graphml", ".drawio", ".topo", ".astra")


def write_data_export(design: Design, catalog: Catalog, path: str | Path, level: str = "device") -> None:
    """``design`` as GraphML (at ``level``), diagrams.net, an ibnetdiscover topology file or
    ASTRA-sim's inputs (a folder named *.astra), by ``path``'s extension; written whole or not
    at all."""
    path = Path(path)
    ext = path.suffix.lower()
    if ext == ".graphml":
        from core.interop.graphml import write_graphml  # noqa: PLC0415 - networkx's writer
        write_graphml(design, catalog, path, level)
    elif ext == ".drawio":
        from core.interop.drawio import write_drawio  # noqa: PLC0415
        write_drawio(design, path)
    elif ext == ".topo":
        from core.interop.ibnetdiscover_write import ibnetdiscover_text  # noqa: PLC0415
        atomic_write_text(path, ibnetdiscover_text(design, catalog))
    elif ext == ".astra":
        from core.interop.astra_sim import write_astra_sim  # noqa: PLC0415
        write_astra_sim(design, catalog, path)
    else:
        raise DesignError(f"{path.name}: unknown data format {ext or '(none)'!r}; use "
                          + ", ".join(DATA_FORMATS))
