"""``--fail PATH[:N]`` and ``--drain PATH[:N]`` applied to a design (the evaluate command).

Each argument sets the item's failed (or drained) units to N, or to every unit not in the
other state when ``:N`` is left out; a later argument for the same item replaces an earlier
one, and the project's own failed/drained fields stand for the items not named. The design
given is left as it is: the what-if is evaluated on a copy.
"""

from __future__ import annotations

from core.errors import DesignError
from core.failure_paths import current_state, parse_target, units_in_design
from core.model import Design
from core.operations import SetOutOfService


def with_out_of_service(design: Design, failed: list[str] = (), drained: list[str] = ()) -> Design:
    """A copy of ``design`` with the ``failed`` and ``drained`` ``PATH[:N]`` arguments applied,
    in order (failed first); a bad path or N is a one-line error naming the argument."""
    if not failed and not drained:
        return design
    copy = design.snapshot()
    for state, texts in (("failed", failed), ("drained", drained)):
        option = "--fail" if state == "failed" else "--drain"
        for text in texts:
            try:
                target, n = parse_target(text)
                total = units_in_design(copy, target.path, target.link_id)
                now_failed, now_drained = current_state(copy, target)
                other = now_drained if state == "failed" else now_failed
                n = total - other if n is None else n
                if n > total - other:
                    raise DesignError(f"{text!r}: {n:,} units asked but {target} has {total:,} in all"
                                      + (f", {other:,} of them already {'drained' if state == 'failed' else 'failed'}"
                                         if other else ""))
                new = (n, other) if state == "failed" else (other, n)
                copy.apply(SetOutOfService(target.path, *new, target.link_id))
            except DesignError as exc:
                message = str(exc)
                raise DesignError(message if message.startswith(f"{option} ") else f"{option} {message}") from None
    return copy
