"""Each user's single-key shortcuts (WCAG 2.1.4): on or off, and which key does what.

The review page (static/js/review.js) and the viewer (viewer/src/viewer.js) read the map from
the page (`data-shortcuts` on <body>); their legends and buttons show the same keys. Keys that
are not single characters (the arrows in the report and on a focused image, Enter and Esc in
the editor) act only where the focus is, and stay whatever this says.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

# (action, default key, what it does), in the order of the legend and the settings page.
ACTIONS: list[tuple[str, str, str]] = [
    ("next", "j", "Next flag"),
    ("previous", "k", "Previous flag"),
    ("primary", "a", "Do what the panel proposes (its first button)"),
    ("keep", "r", "Keep the sentence (reject the flag)"),
    ("edit", "e", "Edit the sentence"),
    ("undo", "u", "Undo the last decision"),
    ("window_level", "w", "Viewer: window/level with the mouse"),
    ("zoom", "z", "Viewer: zoom with the mouse"),
    ("pan", "p", "Viewer: pan with the mouse"),
    ("measure", "m", "Viewer: measure with the mouse"),
    ("invert", "i", "Viewer: invert"),
    ("reset", "0", "Viewer: reset"),
    ("fullscreen", "f", "Viewer: full screen"),
    ("preset_1", "1", "Viewer: default window"),
    ("preset_2", "2", "Viewer: lung window"),
    ("preset_3", "3", "Viewer: soft-tissue window"),
    ("preset_4", "4", "Viewer: bone window"),
]
DEFAULTS = {name: key for name, key, _ in ACTIONS}


@dataclass(frozen=True)
class Shortcuts:
    on: bool
    keys: dict[str, str]

    @property
    def json(self) -> str:
        """What the page's scripts read: the map, or "off"."""
        return json.dumps(self.keys) if self.on else "off"


def of(user) -> Shortcuts:
    """The user's shortcuts: the defaults with their own keys over them."""
    chosen = getattr(user, "shortcut_keys", None) or {}
    keys = {name: chosen.get(name, default) for name, default in DEFAULTS.items()}
    return Shortcuts(on=getattr(user, "shortcuts_on", True), keys=keys)


def shortcut_settings(request) -> dict:
    """Template context: ``shortcuts`` for the legend, the buttons and <body data-shortcuts>."""
    return {"shortcuts": of(request.user)}
