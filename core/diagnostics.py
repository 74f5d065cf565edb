"""Warnings raised by the analyses: a stable code, a message, and the components involved."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    components: tuple[str, ...] = ()  # design paths of the nodes involved (for GUI selection)

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "components": list(self.components)}
