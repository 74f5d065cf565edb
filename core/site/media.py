"""Which cable or optic a run of a given length and speed takes, and how far each reaches.

A link drawn as copper becomes the shortest-reach copper cable that covers its placed length
(DAC, then linear active copper ACC, then retimed active electrical cable AEC); one drawn as
fibre takes multimode optics (SR) where they reach, else single-mode (DR/FR). A run no medium
of its family reaches is a reach violation (it keeps the family's longest medium). Active
optical cables (AOC) are in the table for the export and the cost hook but are not chosen by
default: the SuperPOD RAs cable fibre links as transceivers plus passive fibre.

Reach by lane generation (link speed), metres; 0 = not made at that speed:

===========  ====  ====  ====  ====  ====  =====
link Gb/s    DAC   ACC   AEC   AOC   MMF   SMF
===========  ====  ====  ====  ====  ====  =====
<= 200       3     5     7     100   100   2000
400, 800     3     5     7     100   50    2000
>= 1600      0     2     7     0     0     2000
===========  ====  ====  ====  ====  ====  =====

Sources (P primary, S secondary, E estimate):
* 100G-PAM4 (400G NDR/400GbE, 800G twin-port): DAC "reach is up to 3 meters"; linear ACC
  "extends the reach to 3, 4, and 5-meters"; "Multimode has a 50-meter maximum reach";
  single-mode "up to 2km" (P: NVIDIA LinkX 100G-PAM4 product line overview,
  docs.nvidia.com/networking/display/400g100gpam4ovpub/linkx-100g-pam4-product-line-overview;
  MMS4X00-NM 2xDR4 500 m and MMS4X50-NM 2xFR4 2 km application overviews).
* <= 200G (25G NRZ / 50G PAM4): DAC "2-5 meters (rate dependent)" (3 m taken), AOC "3 meters
  to about 100 meters", multimode SR/SR4 "up to 100 meters", single-mode PSM4 500 m, FR 2 km
  (S: NVIDIA cable management FAQ, docs.nvidia.com/networking/display/cablemanagfaq).
* 200G-PAM4 (XDR 800G ports, 1.6T): "Direct attach copper (DAC) cables (too short at
  200G-PAM4)", "Multimode transceivers, active optical cables (AOC). (Lasers not available
  yet)" are not used; LACC and single-mode are (P: NVIDIA 800Gb/s XDR part-number list,
  docs.nvidia.com/networking/display/800g200gpam4list). The LACC reach of 2 m is E.
* AEC 7 m at every speed: E (retimed active electrical cables are sold to about 7 m).
"""

from __future__ import annotations

import numpy as np

MEDIA = ("dac", "acc", "aec", "aoc", "mmf", "smf")
COPPER_MEDIA = ("dac", "acc", "aec")
FIBRE_MEDIA = ("mmf", "smf")
OPTICS = {"mmf": True, "smf": True}  # media that need a transceiver at each end

# (lowest link Gb/s of the generation, reach by MEDIA order)
_REACH_M = (
    (0.0, (3.0, 5.0, 7.0, 100.0, 100.0, 2000.0)),
    (300.0, (3.0, 5.0, 7.0, 100.0, 50.0, 2000.0)),
    (1200.0, (0.0, 2.0, 7.0, 0.0, 0.0, 2000.0)),
)


def reach_table(speed_gbit_s: float) -> dict[str, float]:
    """Reach in metres of every medium at one link speed (0: not made)."""
    row = [reach for floor, reach in _REACH_M if speed_gbit_s >= floor][-1]
    return dict(zip(MEDIA, row))


def choose_media(length_m: np.ndarray, speed_gbit_s: np.ndarray,
                 fibre: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(MEDIA index, reach exceeded) of every run: the shortest-reach medium of its family
    (``fibre`` True: optics; False: copper) that covers its length."""
    return _by_class(length_m, _generation(speed_gbit_s) * 2 + fibre)


def choose_bundle_media(length_m: np.ndarray, bundle: np.ndarray, speed_gbit_s: np.ndarray,
                        fibre: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``choose_media`` of runs of ``bundle``s whose speed and family are per bundle: classed
    per bundle, a 100,000-GPU design's 350,000 runs take one small gather instead of a search
    and two masks per class."""
    klass = (_generation(speed_gbit_s) * 2 + fibre).astype(np.int8)
    return _by_class(length_m, klass[bundle])


def _generation(speed_gbit_s: np.ndarray) -> np.ndarray:
    floors = np.array([floor for floor, _ in _REACH_M])
    return np.searchsorted(floors, speed_gbit_s, side="right") - 1


def _by_class(length_m: np.ndarray, klass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``choose_media`` of runs of class ``klass``: generation * 2 + (fibre)."""
    medium = np.zeros(len(length_m), dtype=np.int8)
    over = np.zeros(len(length_m), dtype=bool)
    for gen, (_, reach) in enumerate(_REACH_M):
        for is_fibre, family in ((False, COPPER_MEDIA), (True, FIBRE_MEDIA)):
            on = klass == gen * 2 + is_fibre
            if not on.any():
                continue
            made = [(MEDIA.index(m), reach[MEDIA.index(m)]) for m in family
                    if reach[MEDIA.index(m)] > 0]
            codes = np.array([c for c, _ in made], dtype=np.int8)
            reaches = np.array([r for _, r in made])
            pick = np.searchsorted(reaches, length_m[on], side="left")
            over[on] = pick >= len(reaches)
            medium[on] = codes[np.minimum(pick, len(reaches) - 1)]
    return medium, over


def reach_of(medium: np.ndarray, speed_gbit_s: np.ndarray) -> np.ndarray:
    """The reach of every run's medium at its speed."""
    floors = np.array([floor for floor, _ in _REACH_M])
    table = np.array([reach for _, reach in _REACH_M])
    generation = np.searchsorted(floors, speed_gbit_s, side="right") - 1
    return table[generation, medium]
