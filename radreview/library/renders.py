"""Window/level renders of study and reference images, made on demand and cached.

A render is made from the original file through ``workers.imaging``'s presets (docs/imaging.md)
and kept under ``cache/renders/`` of the media; the cache key carries the file's SHA-256, so a
replaced file never serves a stale render. Deleting the folder is always safe.
"""
from __future__ import annotations

from django.conf import settings

from radreview.studies import storage
from workers import imaging

SIDES = (512, 1024, 2048)
DEFAULT_SIDE = 1024


def side_of(value) -> int:
    try:
        wanted = int(value)
    except (TypeError, ValueError):
        return DEFAULT_SIDE
    return min(SIDES, key=lambda side: abs(side - wanted))


def render_png(original: str, kind: str, preset: str, side: int, cache_key: str) -> str:
    """The stored name of the PNG of the stored file ``original`` under ``preset`` (longest
    side at most ``side``), made on the first request. ``FileNotFoundError``: no original."""
    if preset not in imaging.PRESETS:
        raise KeyError(preset)
    relative = f"{settings.RENDER_CACHE_SUBDIR}/{cache_key}-{preset}-{side}.png"
    if storage.exists(relative):
        return relative
    with storage.local_copies():
        path = storage.local_path(original)
        decoded = imaging.read_dicom(path) if kind == "dicom" else imaging.read_image(str(path))
    return storage.write_media_atomically(
        relative, imaging.encode_png(imaging.render(decoded, preset), max_side=side))


def presets() -> list[tuple[str, str]]:
    """(name, label) of every preset, in the order of workers.imaging.PRESETS."""
    return [(name, preset.label) for name, preset in imaging.PRESETS.items()]
