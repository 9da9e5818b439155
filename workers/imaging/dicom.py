"""Read, validate and fully decode one DICOM image.

:func:`read_dicom` is what the upload service calls on every DICOM file: it either returns a
:class:`DicomImage` whose pixels have been decoded (so a corrupt compressed frame is caught
at upload, not later in a worker) or raises an :class:`~workers.imaging.errors.ImagingError`
whose message says what is wrong. What is refused:

- not DICOM at all (no "DICM" marker and no plausible bare data set) -> NotAnImage;
- an unreadable or truncated header, missing or contradictory image tags, pixel data whose
  length does not match Rows × Columns × Bits Allocated, a compressed frame that no decoder
  can decode -> MalformedDicom;
- video (MPEG-2, MPEG-4 AVC/H.264, HEVC/H.265, SMPTE ST 2110), JPIP-referenced pixel data, an
  unknown transfer syntax or one with no installed decoder -> UnsupportedTransferSyntax;
- a DICOM object with no image (Structured Report, presentation state, ...) -> NoPixelData;
- colour images (RGB, YBR, palette colour; a chest radiograph is grayscale, a colour DICOM is
  a screenshot or a photograph), multi-frame images, floating-point pixel data, images above
  :data:`~workers.imaging.source.MAX_PIXELS` -> UnsupportedImage.

Compressed frames are decoded by pylibjpeg's plugins first (pylibjpeg-libjpeg for JPEG and
JPEG-LS, pylibjpeg-openjpeg for JPEG 2000), then by pydicom's other available plugins.

While a file is read, pydicom's value validation is switched to IGNORE, its warnings are
silenced and its log records dropped: pydicom quotes offending tag values (patient names
included) in those messages. These are process-wide switches held for the duration of the
call; another thread using pydicom meanwhile would be quietened too, nothing worse.
"""
from __future__ import annotations

import io
import logging
import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pydicom
from pydicom import Dataset, FileMetaDataset
from pydicom.dataelem import RawDataElement
from pydicom.pixels import get_decoder, pixel_array
from pydicom.uid import UID, ExplicitVRBigEndian, ExplicitVRLittleEndian, ImplicitVRLittleEndian

from .display import display_pixels
from .errors import (
    ImagingError,
    MalformedDicom,
    NoPixelData,
    NotAnImage,
    UnsupportedImage,
    UnsupportedTransferSyntax,
)
from .metadata import DicomMetadata, extract_metadata, uid_name
from .sniff import SNIFF_BYTES, describe_unknown, detect_kind, is_bare_dicom
from .source import MAX_PIXELS, PixelGrid, Source, read_source

log = logging.getLogger(__name__)

#: Decoding plugins in the order they are tried (those available for the syntax).
PLUGIN_PREFERENCE = ("pylibjpeg", "pyjpegls", "pydicom", "gdcm", "pillow")

_MONOCHROME = ("MONOCHROME1", "MONOCHROME2")
_COLOUR = ("RGB", "YBR_FULL", "YBR_FULL_422", "YBR_PARTIAL_420", "YBR_PARTIAL_422", "YBR_ICT",
           "YBR_RCT", "PALETTE COLOR", "ARGB", "CMYK", "HSV")
_UNDEFINED_LENGTH = 0xFFFFFFFF


@dataclass(eq=False)
class DicomImage(PixelGrid):
    """A decoded DICOM radiograph.

    ``pixels``: float32 in [0, 1], bright = dense, after modality LUT, VOI and inversion.
    ``modality_values``: float32 after the modality LUT only, for re-windowing (presets);
    ``invert`` says whether display inverts them (MONOCHROME1). ``voi`` names the window
    used for ``pixels`` ("voi_lut", "window" or "percentile"); ``decoder`` the pydicom
    decoding plugin ("native" for uncompressed data).
    """

    kind: ClassVar[str] = "dicom"

    metadata: DicomMetadata
    pixels: np.ndarray
    modality_values: np.ndarray
    invert: bool
    voi: str
    decoder: str


def read_dicom(source: Source) -> DicomImage:
    """Parse, validate and decode a DICOM file (bytes, path or binary file-like object)."""
    data = read_source(source)
    head = data[:SNIFF_BYTES]
    has_marker = head[128:132] == b"DICM"
    if not has_marker and not is_bare_dicom(head):
        raise NotAnImage(_not_dicom_message(head))
    with _quiet_pydicom():
        try:
            return _read(data, bare=not has_marker)
        except ImagingError:
            raise
        except Exception as exc:  # any library failure on this file means the file is bad
            raise MalformedDicom(
                "The DICOM file is damaged: its header could not be read.",
                detail=type(exc).__name__,
            ) from None


def _read(data: bytes, *, bare: bool) -> DicomImage:
    ds = _parse(data, bare=bare)
    syntax = _transfer_syntax(ds)
    _check_transfer_syntax(syntax)  # first: a JPIP file has no pixel data by design
    _check_has_image(ds)
    _check_image_module(ds, syntax)
    stored, decoder = _decode(ds, syntax)
    shown = display_pixels(stored, ds)
    metadata = extract_metadata(ds, str(syntax))
    log.debug(
        "decoded DICOM image %dx%d, %s, decoder %s, voi %s",
        metadata.columns, metadata.rows, syntax.name, decoder, shown.voi,
    )
    return DicomImage(
        metadata=metadata,
        pixels=shown.pixels,
        modality_values=shown.modality_values,
        invert=shown.invert,
        voi=shown.voi,
        decoder=decoder,
    )


def _not_dicom_message(head: bytes) -> str:
    kind = detect_kind(head)
    if kind in ("png", "jpeg"):
        return f"This file is a {kind.upper()} image, not a DICOM file."
    what = describe_unknown(head) or ("a text file" if kind == "text" else "")
    if what:
        return f"This file is not a DICOM file: it is {what}."
    return "This file is not a DICOM file (it has no DICOM header)."


# --------------------------------------------------------------------------- parsing


def _parse(data: bytes, *, bare: bool) -> Dataset:
    try:
        ds = pydicom.dcmread(io.BytesIO(data), force=bare)
    except Exception as exc:
        raise MalformedDicom(
            "The DICOM file is damaged: its header could not be read.", detail=type(exc).__name__
        ) from None
    if len(ds) == 0:
        raise MalformedDicom(
            "The DICOM file holds no readable data after its file header: "
            "it is truncated or damaged."
        )
    if _is_truncated(ds):
        raise MalformedDicom(
            "The DICOM file is truncated: it ends in the middle of its data. "
            "Upload the complete file."
        )
    if bare and not any(k in ds for k in ("SOPClassUID", "StudyInstanceUID", "Modality", "Rows")):
        raise NotAnImage("This file is not a DICOM file (it has no DICOM header).")
    return ds


def _is_truncated(ds: Dataset) -> bool:
    """pydicom reads a value cut off by the end of the file as a shorter value, silently."""
    for elem in ds.elements():
        if (
            isinstance(elem, RawDataElement)
            and elem.length != _UNDEFINED_LENGTH
            and isinstance(elem.value, bytes)
            and len(elem.value) < elem.length
        ):
            return True
    return False


def _transfer_syntax(ds: Dataset) -> UID:
    meta = getattr(ds, "file_meta", None)
    declared = meta.get("TransferSyntaxUID") if meta is not None else None
    if declared:
        return UID(str(declared).strip().rstrip("\x00"))
    # A bare data set (or file meta without the tag): the encoding pydicom read it with.
    if "PixelData" in ds and ds.get_item(0x7FE00010).length == _UNDEFINED_LENGTH:
        raise MalformedDicom(
            "The DICOM file holds compressed pixel data but does not say how it is compressed "
            "(no transfer syntax)."
        )
    implicit, little = ds.original_encoding
    syntax = (
        ImplicitVRLittleEndian if implicit
        else ExplicitVRLittleEndian if little is not False
        else ExplicitVRBigEndian
    )
    if meta is None:
        ds.file_meta = meta = FileMetaDataset()
    meta.TransferSyntaxUID = syntax
    return syntax


# --------------------------------------------------------------------------- validation


def _check_has_image(ds: Dataset) -> None:
    if "PixelData" in ds:
        return
    if "FloatPixelData" in ds or "DoubleFloatPixelData" in ds:
        raise UnsupportedImage(
            "This DICOM file holds floating-point pixel data (a parametric map), "
            "not a radiograph."
        )
    name = uid_name(_text(ds, "SOPClassUID"))
    if name and "Image Storage" in name:
        raise MalformedDicom(
            f"The DICOM file declares an image ({name}) but holds no pixel data: "
            "it is truncated or was exported without its image."
        )
    what = f" (it is a {name} object)" if name else ""
    raise NoPixelData(
        f"This DICOM file holds no image{what}. Upload the radiographs themselves; "
        "a report can be pasted or uploaded as text."
    )


def _video_label(name: str) -> str | None:
    for marker, label in (
        ("MPEG-4 AVC/H.264", "MPEG-4 AVC/H.264"),
        ("MPEG2", "MPEG-2"),
        ("HEVC/H.265", "HEVC/H.265"),
        ("SMPTE ST 2110", "SMPTE ST 2110"),
    ):
        if marker in name:
            return label
    return None


def _check_transfer_syntax(syntax: UID) -> None:
    if not syntax.is_transfer_syntax:
        raise UnsupportedTransferSyntax(
            f"The DICOM file uses an unknown transfer syntax ({syntax}), "
            "so its image cannot be decoded.",
            transfer_syntax_uid=str(syntax),
        )
    name = syntax.name
    if (label := _video_label(name)) is not None:
        raise UnsupportedTransferSyntax(
            f"{label} video is not supported: RadReview reads still radiographs. "
            "Export the image as an uncompressed, JPEG or JPEG 2000 DICOM file, or as PNG.",
            transfer_syntax_uid=str(syntax),
        )
    if "JPIP" in name:
        raise UnsupportedTransferSyntax(
            f"{name} is not supported: the image is not inside the file but on a remote "
            "server. Export the image itself.",
            transfer_syntax_uid=str(syntax),
        )
    if not syntax.is_compressed:
        return
    try:
        available = get_decoder(syntax).is_available
    except NotImplementedError:
        available = False
    if not available:
        raise UnsupportedTransferSyntax(
            f"The image is compressed as {name}, which this server cannot decode.",
            transfer_syntax_uid=str(syntax),
        )


def _check_image_module(ds: Dataset, syntax: UID) -> None:
    for keyword, tag in (
        ("Rows", "(0028,0010)"),
        ("Columns", "(0028,0011)"),
        ("BitsAllocated", "(0028,0100)"),
        ("PhotometricInterpretation", "(0028,0004)"),
    ):
        if ds.get(keyword) in (None, ""):
            raise MalformedDicom(
                f"The DICOM image is missing its {keyword} {tag} tag, so its pixels cannot "
                "be read; the file is damaged or incomplete."
            )
    rows, columns = int(ds.Rows), int(ds.Columns)
    if rows < 1 or columns < 1:
        raise MalformedDicom(
            f"The DICOM file declares an empty image ({columns} × {rows} pixels)."
        )

    photometric = str(ds.PhotometricInterpretation).strip().upper()
    if photometric in _COLOUR:
        raise UnsupportedImage(
            f"Colour DICOM images ({photometric}) are not supported: a chest radiograph is "
            "grayscale (MONOCHROME1 or MONOCHROME2). A colour DICOM is usually a screenshot or "
            "a photograph; upload the original radiograph."
        )
    if photometric not in _MONOCHROME:
        raise MalformedDicom(
            f"The DICOM file has an invalid Photometric Interpretation ({photometric[:20]})."
        )
    samples = int(ds.get("SamplesPerPixel") or 1)
    if samples != 1:
        raise MalformedDicom(
            f"The DICOM image is {photometric} but declares {samples} samples per pixel."
        )
    frames = _int_or(ds.get("NumberOfFrames"), 1)
    if frames > 1:
        raise UnsupportedImage(
            f"Multi-frame DICOM images ({frames} frames) are not supported: a chest radiograph "
            "is a single image. Upload each view as its own file."
        )
    if rows * columns > MAX_PIXELS:
        raise UnsupportedImage(
            f"The image is {columns} × {rows} pixels, more than the "
            f"{MAX_PIXELS // 1_000_000}-megapixel limit."
        )

    allocated = int(ds.BitsAllocated)
    if allocated not in (1, 8, 16, 32):
        raise MalformedDicom(f"The DICOM file declares {allocated} bits allocated per pixel.")
    if ds.get("BitsStored") is None:
        ds.BitsStored = allocated
    stored = int(ds.BitsStored)
    if not 1 <= stored <= allocated:
        raise MalformedDicom(
            f"The DICOM file declares {stored} bits stored in {allocated} bits allocated "
            "per pixel, which is impossible."
        )
    if ds.get("HighBit") is None:
        ds.HighBit = stored - 1
    if ds.get("PixelRepresentation") is None:
        ds.PixelRepresentation = 0
    if int(ds.PixelRepresentation) not in (0, 1):
        raise MalformedDicom("The DICOM file declares an invalid Pixel Representation.")
    if ds.get("SamplesPerPixel") is None:
        ds.SamplesPerPixel = 1

    if not syntax.is_compressed:
        expected = math.ceil(rows * columns * allocated / 8)
        actual = len(ds.PixelData)
        if actual not in (expected, expected + expected % 2):
            relation = "shorter" if actual < expected else "longer"
            raise MalformedDicom(
                f"The pixel data is {relation} than the image size declares: {rows} rows × "
                f"{columns} columns × {allocated} bits need {expected} bytes, the file holds "
                f"{actual}. The file is damaged or its image tags are wrong."
            )


def _int_or(value: object, default: int) -> int:
    try:
        return int(value) if value not in (None, "") else default
    except (TypeError, ValueError):
        return default


# --------------------------------------------------------------------------- decoding


def _decode(ds: Dataset, syntax: UID) -> tuple[np.ndarray, str]:
    if not syntax.is_compressed:
        return _checked(ds, pixel_array(ds)), "native"
    available = get_decoder(syntax).available_plugins
    rank = {plugin: i for i, plugin in enumerate(PLUGIN_PREFERENCE)}
    order = sorted(available, key=lambda plugin: rank.get(plugin, len(rank)))
    failures = []
    for plugin in order:
        try:
            return _checked(ds, pixel_array(ds, decoding_plugin=plugin)), plugin
        except MalformedDicom:
            raise
        except Exception as exc:
            failures.append(f"{plugin}: {type(exc).__name__}: {str(exc)[:300]}")
    raise MalformedDicom(
        f"The compressed image ({syntax.name}) could not be decoded: the compressed frame is "
        "corrupt or incomplete.",
        detail="; ".join(failures),
    )


def _checked(ds: Dataset, arr: np.ndarray) -> np.ndarray:
    if arr.shape != (int(ds.Rows), int(ds.Columns)):
        raise MalformedDicom(
            f"The decoded image is {'×'.join(map(str, arr.shape))} pixels but the file declares "
            f"{ds.Columns} × {ds.Rows}."
        )
    return arr


# --------------------------------------------------------------------------- quiet pydicom


class _DropAll(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


@contextmanager
def _quiet_pydicom() -> Iterator[None]:
    settings = pydicom.config.settings
    previous = settings.reading_validation_mode
    # A filter acts only on the logger it is attached to, not on records from its children.
    loggers = [logging.getLogger("pydicom")] + [
        logger
        for name, logger in list(logging.root.manager.loggerDict.items())
        if name.startswith("pydicom.") and isinstance(logger, logging.Logger)
    ]
    drop = _DropAll()
    settings.reading_validation_mode = pydicom.config.IGNORE
    for logger in loggers:
        logger.addFilter(drop)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for logger in loggers:
            logger.removeFilter(drop)
        settings.reading_validation_mode = previous


def _text(ds: Dataset, keyword: str) -> str | None:
    try:
        value = ds.get(keyword)
    except Exception:
        return None
    return str(value).strip() if value else None
