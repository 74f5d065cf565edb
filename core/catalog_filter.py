"""Which catalog entries a user asked for: by kind, release year, status and vendor.

Used by ``cluster-designer catalog`` so a user can find the current hardware
(``--kind switch --since 2025``) among entries that span 2015 to announced roadmap parts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from core.catalog import KINDS, STATUSES, YEARS, ComponentSpec
from core.errors import DesignError


@dataclass(frozen=True)
class CatalogQuery:
    """What to keep; ``None`` keeps everything for that criterion."""

    kind: str | None = None
    since_year: int | None = None
    status: str | None = None
    vendor: str | None = None

    def check(self) -> None:
        """A one-line error naming the bad option (the CLI exits 2 with it)."""
        if self.kind is not None and self.kind not in KINDS:
            raise DesignError(f"unknown kind {self.kind!r} (kinds: {', '.join(KINDS)})")
        if self.status is not None and self.status not in STATUSES:
            raise DesignError(f"--status: {self.status!r} is not one of {', '.join(STATUSES)}")
        if self.since_year is not None and not YEARS[0] <= self.since_year <= YEARS[1]:
            raise DesignError(f"--since: {self.since_year} is not a year from {YEARS[0]} to {YEARS[1]}")

    def keeps(self, spec: ComponentSpec) -> bool:
        if self.kind is not None and spec.kind != self.kind:
            return False
        # an entry without a year or status cannot be shown to match a filter on it
        year = spec.year
        if self.since_year is not None and (year is None or year < self.since_year):
            return False
        if self.status is not None and spec.status != self.status:
            return False
        # vendors are written "Broadcom (generic 102.4T box)" or "Sugon / Hygon": a substring,
        # case-insensitive, finds them by the name a user types
        return self.vendor is None or self.vendor.casefold() in spec.vendor.casefold()


def select(specs: Iterable[ComponentSpec], query: CatalogQuery) -> list[ComponentSpec]:
    """The specs ``query`` keeps, in catalog order."""
    query.check()
    return [spec for spec in specs if query.keeps(spec)]
