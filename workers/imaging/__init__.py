"""DICOM and image decoding, the pixel pipeline, previews, encoder inputs and the built-in
appearance descriptor. Plain Python, no Django: see docs/imaging.md.

The upload service validates a file with :func:`read_image` (which fully decodes it); the
ingest stage renders previews with :func:`render` / :func:`encode_png`; image retrieval
embeds with :func:`describe` (or an encoder backend fed by :func:`to_model_input`).
"""
from __future__ import annotations

from .descriptor import APPEARANCE_DESCRIPTOR_NAME, DESCRIPTOR_DIM, describe, similarity
from .dicom import DicomImage, read_dicom
from .display import as_unit_float, to_uint8
from .errors import (
    ImagingError,
    MalformedDicom,
    MalformedImage,
    NoPixelData,
    NotAnImage,
    UnsupportedImage,
    UnsupportedTransferSyntax,
)
from .metadata import PHI_FIELDS, VIEWS, DicomMetadata
from .model_input import fit_square, to_model_input, to_pil_rgb
from .presets import (
    PRESETS,
    WindowPreset,
    apply_preset,
    render,
    render_all,
    render_window,
    window_for_preset,
)
from .previews import encode_png, thumbnail
from .raster import RasterImage, read_raster
from .sniff import SNIFF_BYTES, describe_unknown, detect_kind
from .source import MAX_PIXELS, Source, read_source

DecodedImage = DicomImage | RasterImage


def read_image(source: Source, filename: str = "") -> DecodedImage:
    """Read a DICOM, PNG or JPEG file, whichever it is (decided from its content).
    Raises NotAnImage for anything else, including a text report."""
    data = read_source(source)
    kind = detect_kind(data[:SNIFF_BYTES], filename)
    if kind == "dicom":
        return read_dicom(data)
    if kind in ("png", "jpeg"):
        return read_raster(data)
    if not data:
        raise NotAnImage("The file is empty.")
    if kind == "text":
        raise NotAnImage(
            "This is a text file, not an image. Upload a report as the study's report."
        )
    what = describe_unknown(data[:SNIFF_BYTES])
    raise NotAnImage(
        f"This file is not an image RadReview can read{': it is ' + what if what else ''}. "
        "Upload DICOM, PNG or JPEG files."
    )


__all__ = [
    "APPEARANCE_DESCRIPTOR_NAME",
    "DESCRIPTOR_DIM",
    "MAX_PIXELS",
    "PHI_FIELDS",
    "PRESETS",
    "SNIFF_BYTES",
    "VIEWS",
    "DicomImage",
    "DecodedImage",
    "DicomMetadata",
    "ImagingError",
    "MalformedDicom",
    "MalformedImage",
    "NoPixelData",
    "NotAnImage",
    "RasterImage",
    "Source",
    "UnsupportedImage",
    "UnsupportedTransferSyntax",
    "WindowPreset",
    "apply_preset",
    "as_unit_float",
    "describe",
    "describe_unknown",
    "detect_kind",
    "encode_png",
    "fit_square",
    "read_dicom",
    "read_image",
    "read_raster",
    "read_source",
    "render",
    "render_all",
    "render_window",
    "similarity",
    "thumbnail",
    "to_model_input",
    "to_pil_rgb",
    "to_uint8",
    "window_for_preset",
]
