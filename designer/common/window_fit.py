"""How big the main window opens and where: fitted to the screen it appears on.

Pure functions of rectangles (Qt value types only, no widgets), so every screen size can be
tested without one. ``available`` is the screen's usable area (QScreen.availableGeometry:
without task bars and docks); ``frame`` is what the window manager adds around the window's
client area (title bar, borders).
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize

PREFERRED_SIZE = QSize(1600, 1000)  # the client area the default layout is drawn for
SCREEN_MARGIN_PX = 16               # kept free between the window's frame and the usable area's edges
# Before a window is first shown its frame is unknown; this is a generous guess (title bars are
# 30-38 px on GNOME, KDE and Windows) so that the status bar is never pushed off the screen.
FRAME_ESTIMATE = QMargins(8, 38, 8, 8)


def fitted_geometry(available: QRect, frame: QMargins = FRAME_ESTIMATE, preferred: QSize = PREFERRED_SIZE,
                    margin_px: int = SCREEN_MARGIN_PX) -> QRect:
    """The client rectangle of a window of at most ``preferred`` size whose frame, plus
    ``margin_px`` all round, fits inside ``available``; centred there."""
    room_w = available.width() - 2 * margin_px - frame.left() - frame.right()
    room_h = available.height() - 2 * margin_px - frame.top() - frame.bottom()
    width = max(1, min(preferred.width(), room_w))
    height = max(1, min(preferred.height(), room_h))
    outer_w = width + frame.left() + frame.right()
    outer_h = height + frame.top() + frame.bottom()
    x = available.x() + (available.width() - outer_w) // 2 + frame.left()
    y = available.y() + (available.height() - outer_h) // 2 + frame.top()
    return QRect(x, y, width, height)


def beside(parent: QRect, size: QSize, available: QRect, frame: QMargins = FRAME_ESTIMATE,
           gap_px: int = SCREEN_MARGIN_PX) -> QRect:
    """The client rectangle of a secondary window of ``size`` (shrunk to fit ``available``)
    next to its parent, whose frame is ``parent``: right of it when the screen has room there,
    else left of it, else over the parent shifted down and right by a title bar (so both stay
    in sight); always inside ``available``, never at the screen's corner by default."""
    fitted = fitted_geometry(available, frame, size, gap_px)
    width, height = fitted.width(), fitted.height()
    outer_w = width + frame.left() + frame.right()
    outer_h = height + frame.top() + frame.bottom()
    right = parent.right() + 1 + gap_px
    left = parent.left() - gap_px - outer_w
    if right + outer_w <= available.right() + 1:
        x, y = right, parent.top()
    elif left >= available.left():
        x, y = left, parent.top()
    else:
        x, y = parent.left() + frame.top(), parent.top() + frame.top()
    x = min(max(x, available.left()), available.right() + 1 - outer_w)
    y = min(max(y, available.top()), available.bottom() + 1 - outer_h)
    return QRect(x + frame.left(), y + frame.top(), width, height)
