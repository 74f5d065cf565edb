"""A catalog for the multi-plane tests: the built-in one plus three stand-ins with made-up ids,
so the tests fix the generator's inputs whatever the catalog holds (SHARED INTERFACE 2 shapes):

* ``TEST-NIC-800`` - an 800G NIC that also runs 2 x 400G or 4 x 200G (ConnectX-8's modes);
* ``TEST-SERVER-8x800`` - DGX-B200 with 8 of those NICs (a DGX-B300-class server);
* ``TEST-SWITCH-102T`` - a 102.4T switch: 64 x 1.6T, 128 x 800G, 256 x 400G, 512 x 200G
  (Tomahawk 6's modes).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from core.catalog import Catalog, default_catalog


@cache
def plane_catalog() -> Catalog:
    base = default_catalog()
    nic = base.get("ConnectX-7")
    nic800 = replace(nic, id="TEST-NIC-800", port_gbit_s=800, ports=1,
                     ports_by_gbit_s={"800": 1, "400": 2, "200": 4})
    server = base.get("DGX-B200")
    server800 = replace(server, id="TEST-SERVER-8x800", nic="TEST-NIC-800")
    switch = base.get("TH5")
    switch102 = replace(switch, id="TEST-SWITCH-102T",
                        ports_by_gbit_s={"1600": 64, "800": 128, "400": 256, "200": 512},
                        capacity_tbit_s=102.4)
    return Catalog([*base, nic800, server800, switch102])
