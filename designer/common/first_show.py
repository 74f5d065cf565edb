"""Dock panels whose widgets are made when first needed: the window opens with them behind
other tabs, and making a form of a hundred fields is tens of milliseconds of every start
(bench/bench_startup.py).

A panel keeps its signals, workers and state from its constructor; ``_build_body`` makes the
widgets and shows the document. It runs when the dock is first raised
(``dock_visibility_changed``) or when anything reads a widget the body makes (a test, a menu
action): an attribute the panel does not have yet builds the body, then is looked up again.
Methods that only keep a panel in step with the document return early until it is built,
since building reads the document as it is then.
"""

from __future__ import annotations


class BuiltOnFirstShow:
    """Mixin for a QWidget panel; subclasses define ``_build_body``."""

    _body_built = False

    def _build_body(self) -> None:
        raise NotImplementedError

    @property
    def body_built(self) -> bool:
        return self._body_built

    def ensure_built(self) -> None:
        if not self._body_built:
            self._body_built = True  # first: _build_body's own reads must not build again
            self._build_body()

    def dock_visibility_changed(self, shown: bool) -> None:
        """Connected to the dock's visibilityChanged: a tab raised shows its fields."""
        if shown:
            self.ensure_built()

    def __getattr__(self, name: str):
        # only reached for attributes the panel does not have: the body's widgets and state
        # before it is built (special names are never the body's)
        if name.startswith("__") or self._body_built:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.ensure_built()
        return object.__getattribute__(self, name)
