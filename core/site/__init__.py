"""The floor plan: a design placed in racks, rows and halls, and its cables' real lengths.

(core/site_spec.py: the project's optional "site" key: halls, rack moves, layout figures)
templates.py  racks of one block instance, tiled by its count (arrays, never an object per rack)
layout.py     pieces into rows and halls; the user's moves
media.py      reach by medium and speed (data sheets cited there); the medium a length calls for
cables.py     every cable's length from its ends' positions; summaries
analysis.py   analyze_site -> SiteResult (the evaluation JSON's "site" section, its warnings)
hook.py       per-medium totals and per-bundle propagation for cost, power and latency
effect.py     cables and optics priced and powered at drawn and at placed lengths
failures.py   link failure rates by placed medium (DAC, active copper, optics), for reliability
latency.py    what placed lengths change in latency, per tier
place.py      a design placed without the other analyses (for the exports)
export.py     cable schedule CSV, rack elevations, floor plan SVG
"""
