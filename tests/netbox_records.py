"""NetBox 4.x records as its REST API returns them, for tests/test_interop_netbox.py -- NOT a
NetBox server: no HTTP, no validation, no permissions, no uniqueness checks.

``serialize`` is this test set's model of NetBox's serializers for the fields the adapter writes
and reads, from NetBox 4.6.8 (github.com/netbox-community/netbox at 43fe81f):
netbox/dcim/api/serializers_/{devices,devicetypes,manufacturers,roles,sites,racks,
device_components,cables}.py (fields and brief_fields), netbox/netbox/api/serializers/generic.py
(GenericObjectSerializer: a cable end is {"object_type", "object_id", "object"}),
netbox/netbox/api/fields.py (ChoiceField: {"value", "label"}; a cable's ``type`` is not one, so
it is the plain value). ``Store`` keeps such records per endpoint and answers the subset of
pynetbox's Endpoint calls core/interop/netbox.py makes (get, filter, all, count, create), with
records that are pynetbox's own Record objects built from that JSON (as pynetbox builds them
from a response), so ``dict(record)`` is exercised as it is against a server.
"""

from __future__ import annotations

BASE = "http://netbox.invalid"
# brief_fields per endpoint (the nested form of a related object)
BRIEF = {
    "manufacturers": ("id", "url", "display", "name", "slug", "description"),
    "device_types": ("id", "url", "display", "manufacturer", "model", "slug", "description", "device_count"),
    "device_roles": ("id", "url", "display", "name", "slug", "description", "device_count",
                     "virtualmachine_count", "_depth"),
    "sites": ("id", "url", "display", "name", "description", "slug"),
    "locations": ("id", "url", "display", "name", "slug", "description", "rack_count", "_depth"),
    "racks": ("id", "url", "display", "name", "description", "device_count"),
    "devices": ("id", "url", "display", "name", "description"),
    "interfaces": ("id", "url", "display", "device", "name", "description", "cable", "_occupied"),
    "cables": ("id", "url", "display", "label", "description"),
}
REFS = {"manufacturer": "manufacturers", "device_type": "device_types", "role": "device_roles",
        "site": "sites", "location": "locations", "parent": "locations", "rack": "racks", "device": "devices"}
CHOICES = {"status", "face", "length_unit"}
# fields the serializer returns as null when a create body leaves them out
NULLS = {"devices": ("location", "rack", "position", "face"), "racks": ("location",),
         "locations": ("parent",), "cables": ("length", "length_unit"), "interfaces": ("speed",)}


def serialize(store: "Store", endpoint: str, record_id: int, body: dict) -> dict:
    """The record NetBox returns for an object created from ``body``."""
    out = {"id": record_id, "url": f"{BASE}/api/dcim/{endpoint.replace('_', '-')}/{record_id}/",
           "display_url": f"{BASE}/dcim/{endpoint.replace('_', '-')}/{record_id}/",
           "display": str(body.get("name") or body.get("model") or f"#{record_id}"), "description": ""}
    for field in NULLS.get(endpoint, ()):
        out[field] = None
    for field, value in body.items():
        if field in REFS and value is not None:
            out[field] = store.brief(REFS[field], value)
        elif field in CHOICES or (endpoint == "interfaces" and field == "type"):
            out[field] = {"value": value, "label": value.replace("-", " ").title()}
        elif field in ("a_terminations", "b_terminations"):
            out[field] = [{"object_type": t["object_type"], "object_id": t["object_id"],
                           "object": store.brief("interfaces", t["object_id"])} for t in value]
        else:
            out[field] = value
    if endpoint == "locations":
        out["_depth"] = 0 if body.get("parent") is None else 1
    return out


class Store:
    """Records per endpoint, answered as pynetbox Records (see the module's docstring)."""

    def __init__(self):
        import pynetbox  # noqa: PLC0415

        self.api = pynetbox.api(BASE, token="unused")  # builds Records only; never sends a request
        self.records: dict[str, dict[int, dict]] = {name: {} for name in BRIEF}
        self.next_id = 1
        self.dcim = _Dcim(self)

    def brief(self, endpoint: str, record_id) -> dict:
        record = self.records[endpoint][int(record_id)]
        return {k: record.get(k, 0 if k.endswith("count") else "") for k in BRIEF[endpoint]}

    def add(self, endpoint: str, body: dict) -> dict:
        record = serialize(self, endpoint, self.next_id, body)
        self.records[endpoint][self.next_id] = record
        self.next_id += 1
        return record

    def site_of(self, endpoint: str, record: dict):
        """The site id a site_id filter matches a record by (a cable: either end's device's)."""
        if endpoint == "interfaces":
            return self.records["devices"][record["device"]["id"]]["site"]["id"]
        if endpoint == "cables":
            return {self.site_of("interfaces", self.records["interfaces"][t["object_id"]])
                    for t in record["a_terminations"] + record["b_terminations"]}
        return (record.get("site") or {}).get("id")

    def status(self) -> dict:
        return {"netbox-version": "4.6.8"}


class _Dcim:
    def __init__(self, store: Store):
        self._store = store

    def __getattr__(self, name: str) -> "_Endpoint":
        return _Endpoint(self._store, name)


class _Endpoint:
    def __init__(self, store: Store, name: str):
        self.store, self.name = store, name
        self._pynetbox = getattr(store.api.dcim, name)

    def _record(self, data: dict):
        return self._pynetbox.return_obj(data, self.store.api, self._pynetbox)

    def _matches(self, record: dict, filters: dict) -> bool:
        for key, want in filters.items():
            if key == "site_id":
                have = self.store.site_of(self.name, record)
                if not (want in have if isinstance(have, set) else have == want):
                    return False
            elif key.endswith("_id"):
                if (record.get(key[:-3]) or {}).get("id") != want:
                    return False
            elif record.get(key) != want:
                return False
        return True

    def filter(self, **filters) -> list:
        return [self._record(r) for r in self.store.records[self.name].values() if self._matches(r, filters)]

    def all(self) -> list:
        return self.filter()

    def count(self, **filters) -> int:
        return len(self.filter(**filters))

    def get(self, **filters):
        found = self.filter(**filters)
        if len(found) > 1:
            raise ValueError("get() returned more than one result")
        return found[0] if found else None

    def create(self, *args, **kwargs):
        if args:
            return [self._record(self.store.add(self.name, body)) for body in args[0]]
        return self._record(self.store.add(self.name, kwargs))
