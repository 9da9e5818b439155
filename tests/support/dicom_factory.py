"""Build chest-X-ray-like DICOM, PNG and JPEG files in memory for tests.

Plain functions that return ``bytes`` (or a pydicom ``Dataset`` when a test wants to tamper
with it first), so every package's tests can make the files they need without fixtures on
disk. The anatomy comes from :func:`chest_phantom`, a procedural drawing of a frontal chest
radiograph (trunk, two lung fields, heart and mediastinum, spine, ribs, clavicles, diaphragm
domes and random blobs) whose shapes vary with the seed.

Compression uses pydicom's real encoders: RLE Lossless (pydicom's own), JPEG 2000 Lossless
(pylibjpeg-openjpeg), JPEG-LS Lossless (pyjpegls); JPEG Baseline frames are written by Pillow
and encapsulated, because pydicom has no JPEG Baseline encoder.
"""
from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image
from pydicom import Dataset, FileMetaDataset
from pydicom.encaps import encapsulate, generate_frames
from pydicom.sequence import Sequence
from pydicom.uid import (
    MPEG4HP41,
    PYDICOM_IMPLEMENTATION_UID,
    UID,
    BasicTextSRStorage,
    ComputedRadiographyImageStorage,
    DigitalXRayImageStorageForPresentation,
    ExplicitVRLittleEndian,
    ImplicitVRLittleEndian,
    JPEG2000Lossless,
    JPEGBaseline8Bit,
    JPEGLSLossless,
    RLELossless,
    SecondaryCaptureImageStorage,
    generate_uid,
)

SOP_CLASSES = {
    "dx": DigitalXRayImageStorageForPresentation,
    "cr": ComputedRadiographyImageStorage,
    "sc": SecondaryCaptureImageStorage,
}

# name -> (transfer syntax, encoding plugin for Dataset.compress; None: encapsulated by hand)
COMPRESSIONS = {
    "rle": (RLELossless, "pydicom"),
    "jpeg2000": (JPEG2000Lossless, "pylibjpeg"),
    "jpegls": (JPEGLSLossless, "pyjpegls"),
    "jpeg_baseline": (JPEGBaseline8Bit, None),
}

MALFORMED_KINDS = (
    "truncated",
    "truncated_header",
    "bad_header",
    "bad_pixels",
    "corrupt_frame",
    "missing_rows",
    "bad_bits",
)

# DICOM ViewPosition defined terms for the views tests ask for by name.
_VIEW_POSITIONS = {"PA": "PA", "AP": "AP", "LATERAL": "LL", "LL": "LL", "RL": "RL"}


# --------------------------------------------------------------------------- anatomy


def _smooth_noise(rng: np.random.Generator, rows: int, cols: int, cells: int) -> np.ndarray:
    """Low-frequency noise in about [-1, 1]: a coarse random grid upsampled bicubically."""
    coarse = rng.standard_normal((cells, cells)).astype(np.float32)
    img = Image.fromarray(coarse).resize((cols, rows), Image.BICUBIC)
    return np.asarray(img, dtype=np.float64) / 1.5


def _inside(d: np.ndarray, edge: float) -> np.ndarray:
    """Soft indicator of d < 0 (d is an implicit shape function), edge width in normalised units."""
    return 1.0 / (1.0 + np.exp(np.clip(d / edge, -60, 60)))


def chest_phantom(seed: int = 0, rows: int = 256, cols: int = 256) -> np.ndarray:
    """A synthetic frontal chest radiograph: float64 in [0, 1], bright = dense (bone white).

    Shapes, sizes, rib spacing and blobs (nodule- or opacity-like) vary with ``seed``; the
    layout is the same for every seed, so different seeds are "different patients".
    """
    rng = np.random.default_rng(seed)
    yy, xx = np.meshgrid(
        (np.arange(rows) + 0.5) / rows * 2 - 1,
        (np.arange(cols) + 0.5) / cols * 2 - 1,
        indexing="ij",
    )
    u = rng.uniform  # shorthand: u(low, high)
    edge = 0.015

    img = np.full((rows, cols), 0.04)
    # Trunk (soft tissue), a superellipse wider than tall that runs off the bottom of the image.
    tw, tcy = u(0.80, 0.92), u(0.05, 0.2)
    trunk = _inside((np.abs(xx / tw) ** 4 + np.abs((yy - tcy) / 1.35) ** 4) - 1, edge * 4)
    img += 0.46 * trunk

    # Lung fields: two ellipses with domed diaphragms; the left lung (image right) is smaller.
    lungs = np.zeros_like(img)
    for side in (-1, 1):
        cx = side * u(0.36, 0.44)
        cy = u(-0.1, 0.0)
        ax = u(0.26, 0.33) * (0.92 if side > 0 else 1.0)
        ay = u(0.6, 0.72)
        shape = ((xx - cx) / ax) ** 2 + ((yy - cy) / ay) ** 2 - 1
        dome = (yy - (cy + ay * u(0.55, 0.75) - 0.35 * (xx - cx) ** 2 / ax)) / 0.3
        lungs = np.maximum(lungs, _inside(np.maximum(shape, dome), edge * 2))
    img -= 0.3 * lungs * trunk

    # Heart (patient's left is the image right on a PA view), mediastinum, spine behind them.
    hx, hy = u(0.08, 0.16), u(0.3, 0.42)
    heart_w, heart_h = u(0.28, 0.38), u(0.22, 0.3)
    heart = _inside(((xx - hx) / heart_w) ** 2 + ((yy - hy) / heart_h) ** 2 - 1, edge * 3)
    mediastinum = _inside(np.abs(xx / u(0.12, 0.17)) ** 2 + ((yy + 0.25) / 0.7) ** 8 - 1, edge * 3)
    img += 0.28 * np.maximum(heart, mediastinum)
    spine = _inside(np.abs(xx) / u(0.07, 0.09) - 1, edge)
    img += 0.06 * spine * trunk

    # Ribs: arcs across each hemithorax, highest a third of the way out, falling laterally.
    spacing, phase = u(0.15, 0.19), u(0.0, 0.05)
    thickness = u(0.025, 0.035)
    ribs = np.zeros_like(img)
    for i in range(9):
        curve = -0.85 + phase + i * spacing + 0.9 * (np.abs(xx) - 0.3) ** 2
        ribs = np.maximum(ribs, _inside(np.abs(yy - curve) / thickness - 1, 0.4))
    img += 0.1 * ribs * trunk * (1 - spine)

    # Clavicles.
    for side in (-1, 1):
        line = -0.75 + u(-0.04, 0.04) + 0.12 * (side * xx)
        along = _inside(np.abs(xx - side * 0.35) / 0.35 - 1, 0.1)
        band = _inside(np.abs(yy - line) / 0.03 - 1, 0.4) * along
        img += 0.12 * band * trunk

    # Lung texture (vessel-like mottling) and random blobs.
    img += 0.035 * _smooth_noise(rng, rows, cols, 24) * lungs
    img += 0.02 * _smooth_noise(rng, rows, cols, 8)
    for _ in range(int(rng.integers(2, 7))):
        bx, by = u(-0.7, 0.7), u(-0.5, 0.6)
        radius = u(0.03, 0.12)
        amp = u(0.08, 0.2) * (1 if rng.random() < 0.8 else -1)
        img += amp * np.exp(-(((xx - bx) ** 2 + (yy - by) ** 2) / (2 * radius ** 2)))
    return np.clip(img, 0.0, 1.0)


# --------------------------------------------------------------------------- DICOM


def stored_values(
    density: np.ndarray, *, bits: int = 12, photometric: str = "MONOCHROME2", signed: bool = False
) -> np.ndarray:
    """Map a density image (bright = dense) to stored pixel values for the given encoding."""
    top = 2 ** bits - 1
    values = np.rint(np.clip(density, 0, 1) * top).astype(np.int64)
    if photometric == "MONOCHROME1":
        values = top - values
    if signed:
        values -= 2 ** (bits - 1)
    dtype = (np.int8 if signed else np.uint8) if bits <= 8 else (np.int16 if signed else np.uint16)
    return values.astype(dtype)


def _file_meta(sop_class: str, sop_uid: str, transfer_syntax: str) -> FileMetaDataset:
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = sop_class
    meta.MediaStorageSOPInstanceUID = sop_uid
    meta.TransferSyntaxUID = transfer_syntax
    meta.ImplementationClassUID = PYDICOM_IMPLEMENTATION_UID
    return meta


def _patient_and_study(ds: Dataset, **tags: Any) -> None:
    ds.PatientName = tags["patient_name"]
    ds.PatientID = tags["patient_id"]
    ds.PatientBirthDate = tags["birth_date"]
    ds.PatientSex = tags["sex"]
    ds.PatientAge = tags["age"]
    ds.StudyInstanceUID = tags["study_uid"]
    ds.SeriesInstanceUID = tags["series_uid"]
    ds.SOPInstanceUID = tags["sop_uid"]
    ds.StudyDate = tags["study_date"]
    ds.StudyTime = "101530"
    ds.AccessionNumber = tags["accession"]
    ds.StudyID = "1"
    ds.SeriesNumber = 1
    ds.InstanceNumber = 1
    ds.ReferringPhysicianName = ""
    ds.InstitutionName = "Test Hospital"
    ds.Manufacturer = "RadReview Test Factory"


def make_dicom_dataset(
    *,
    study_uid: str | None = None,
    series_uid: str | None = None,
    sop_uid: str | None = None,
    view: str | None = "PA",
    photometric: str = "MONOCHROME2",
    rows: int = 256,
    cols: int = 256,
    bits: int = 12,
    signed: bool = False,
    rescale: tuple[float, float] | None = (1.0, 0.0),
    window: tuple[float, float] | None = None,
    voi_lut: bool = False,
    compress: str | None = None,
    patient_name: str = "Test^Patient",
    patient_id: str = "PID-0001",
    accession: str = "ACC-0001",
    birth_date: str = "19600101",
    sex: str = "F",
    age: str = "064Y",
    study_date: str = "20240131",
    seed: int = 0,
    density: np.ndarray | None = None,
    pixels: np.ndarray | None = None,
    modality: str = "DX",
    sop_class: str = "dx",
    laterality: str | None = None,
    body_part: str | None = "CHEST",
    imager_pixel_spacing: float | None = 0.139,
    pixel_spacing: float | None = None,
    series_description: str | None = None,
    protocol_name: str | None = None,
    implicit_vr: bool = False,
    extra: Mapping[str, Any] | None = None,
) -> Dataset:
    """A single-frame chest radiograph as a pydicom Dataset with file meta.

    ``density`` (float, bright = dense) defaults to ``chest_phantom(seed, rows, cols)``;
    ``pixels`` overrides the stored values outright. ``rescale`` is (slope, intercept), None
    to leave the tags out. ``window`` is (center, width) in modality units (after rescale).
    ``voi_lut`` adds a non-linear (square-root) VOI LUT Sequence over the modality range.
    ``compress`` is None or one of :data:`COMPRESSIONS`. ``view`` is "PA", "AP", "LATERAL"
    (written as ViewPosition "LL"), any other literal, or None for no ViewPosition. ``extra``
    sets further attributes by keyword (e.g. ``{"PresentationLUTShape": "INVERSE"}``).

    Spacing is written as a real radiograph carries it: a DX or CR image has Imager Pixel
    Spacing, the detector's element spacing in mm (``imager_pixel_spacing``, None to leave it
    out); Pixel Spacing at the patient only when the image was calibrated (``pixel_spacing``,
    written with Pixel Spacing Calibration Type GEOMETRY, i.e. corrected for magnification).
    A secondary capture has neither.
    """
    study_uid = study_uid or generate_uid()
    series_uid = series_uid or generate_uid()
    sop_uid = sop_uid or generate_uid()
    sop_class_uid = SOP_CLASSES.get(sop_class, sop_class)
    syntax = ImplicitVRLittleEndian if implicit_vr else ExplicitVRLittleEndian

    if pixels is None:
        if density is None:
            density = chest_phantom(seed, rows, cols)
        pixels = stored_values(density, bits=bits, photometric=photometric, signed=signed)
    pixels = np.ascontiguousarray(pixels)
    rows, cols = pixels.shape

    ds = Dataset()
    ds.file_meta = _file_meta(sop_class_uid, sop_uid, syntax)
    ds.SOPClassUID = sop_class_uid
    ds.Modality = modality
    _patient_and_study(
        ds,
        patient_name=patient_name,
        patient_id=patient_id,
        birth_date=birth_date,
        sex=sex,
        age=age,
        study_uid=study_uid,
        series_uid=series_uid,
        sop_uid=sop_uid,
        study_date=study_date,
        accession=accession,
    )
    ds.StudyDescription = "XR CHEST"
    if series_description is not None:
        ds.SeriesDescription = series_description
    if protocol_name is not None:
        ds.ProtocolName = protocol_name
    if body_part is not None:
        ds.BodyPartExamined = body_part
    if view is not None:
        ds.ViewPosition = _VIEW_POSITIONS.get(view.upper(), view)
    if laterality is not None:
        ds.ImageLaterality = laterality
    ds.PatientOrientation = ["L", "F"] if view == "LATERAL" else ["R", "F"]
    ds.ImageType = ["ORIGINAL", "PRIMARY"]
    _spacing(ds, sop_class, imager_pixel_spacing, pixel_spacing)

    ds.SamplesPerPixel = 1
    ds.PhotometricInterpretation = photometric
    ds.Rows = rows
    ds.Columns = cols
    ds.BitsAllocated = 8 if bits <= 8 else 16
    ds.BitsStored = bits
    ds.HighBit = bits - 1
    ds.PixelRepresentation = 1 if signed else 0
    if sop_class == "dx":
        ds.PresentationIntentType = "FOR PRESENTATION"
        ds.PresentationLUTShape = "INVERSE" if photometric == "MONOCHROME1" else "IDENTITY"
    if rescale is not None:
        ds.RescaleSlope = rescale[0]
        ds.RescaleIntercept = rescale[1]
        ds.RescaleType = "US"
    if window is not None:
        ds.WindowCenter = window[0]
        ds.WindowWidth = window[1]
    if voi_lut:
        slope, intercept = rescale if rescale is not None else (1.0, 0.0)
        modality_values = pixels.astype(np.float64) * slope + intercept
        first = int(np.floor(modality_values.min()))
        entries = int(np.ceil(modality_values.max())) - first + 1
        ramp = np.linspace(0.0, 1.0, entries)
        item = Dataset()
        # LUT Descriptor is US, or SS when the first mapped value is negative.
        item.add_new(0x00283002, "SS" if first < 0 else "US", [entries % 65536, first, 16])
        # LUT Data is ambiguous (US or OW); US keeps it endian-independent.
        item.add_new(0x00283006, "US", [int(v) for v in np.rint(np.sqrt(ramp) * 65535)])
        item.LUTExplanation = "SQRT"
        ds.VOILUTSequence = Sequence([item])
    for keyword, value in (extra or {}).items():
        setattr(ds, keyword, value)
    ds.PixelData = pixels.tobytes()

    if compress is not None:
        _compress(ds, compress)
    return ds


def _spacing(ds: Dataset, sop_class: str, imager: float | None, calibrated: float | None) -> None:
    if sop_class not in ("dx", "cr"):
        return
    if imager is not None:
        ds.ImagerPixelSpacing = [imager, imager]
    if calibrated is not None:
        ds.PixelSpacing = [calibrated, calibrated]
        ds.PixelSpacingCalibrationType = "GEOMETRY"
        ds.PixelSpacingCalibrationDescription = "Corrected for an estimated magnification"


def _compress(ds: Dataset, compress: str) -> None:
    if compress not in COMPRESSIONS:
        raise ValueError(
            f"unknown compression {compress!r}; expected one of {sorted(COMPRESSIONS)}"
        )
    syntax, plugin = COMPRESSIONS[compress]
    if plugin is not None:
        ds.compress(syntax, encoding_plugin=plugin, generate_instance_uid=False)
        return
    # JPEG Baseline: 8-bit only, encoded by Pillow and encapsulated here.
    if ds.BitsStored != 8:
        raise ValueError("jpeg_baseline needs bits=8")
    arr = np.frombuffer(ds.PixelData, dtype=np.uint8).reshape(ds.Rows, ds.Columns)
    buffer = io.BytesIO()
    Image.fromarray(arr).save(buffer, format="JPEG", quality=95)
    ds.PixelData = encapsulate([buffer.getvalue()])
    ds["PixelData"].VR = "OB"
    ds["PixelData"].is_undefined_length = True
    ds.file_meta.TransferSyntaxUID = syntax
    ds.LossyImageCompression = "01"
    ds.LossyImageCompressionMethod = "ISO_10918_1"


def dataset_bytes(ds: Dataset, *, preamble: bool = True) -> bytes:
    """Serialise a dataset as a DICOM Part 10 file (or, with ``preamble=False``, a bare
    dataset with neither the 128-byte preamble, the "DICM" marker nor file meta)."""
    buffer = io.BytesIO()
    if preamble:
        syntax = UID(ds.file_meta.TransferSyntaxUID)
        if syntax.is_transfer_syntax:
            ds.save_as(buffer, enforce_file_format=True)
        else:  # an unknown syntax: say how to write the data set itself
            ds.save_as(buffer, enforce_file_format=True, implicit_vr=False, little_endian=True)
    else:
        meta = ds.file_meta
        implicit = meta.TransferSyntaxUID == ImplicitVRLittleEndian
        bare = Dataset(ds)  # the same elements, without file meta
        bare.save_as(buffer, implicit_vr=implicit, little_endian=True)
    return buffer.getvalue()


def make_dicom(*, preamble: bool = True, **options: Any) -> bytes:
    """Bytes of a chest-radiograph DICOM file; keyword options as :func:`make_dicom_dataset`."""
    return dataset_bytes(make_dicom_dataset(**options), preamble=preamble)


def make_malformed_dicom(kind: str = "truncated", **options: Any) -> bytes:
    """A broken DICOM file. Kinds (see :data:`MALFORMED_KINDS`):

    - ``truncated``: a valid file cut off in the middle of its pixel data;
    - ``truncated_header``: cut off inside the header, before any pixel data;
    - ``bad_header``: a valid preamble and "DICM" marker followed by garbage;
    - ``bad_pixels``: Rows declares more rows than the pixel data holds;
    - ``corrupt_frame``: JPEG 2000 Lossless whose codestream was cut in half;
    - ``missing_rows``: the Rows tag is absent;
    - ``bad_bits``: Bits Stored greater than Bits Allocated.
    """
    if kind == "truncated":
        data = make_dicom(**options)
        return data[: len(data) - len(data) // 3]
    if kind == "truncated_header":
        return make_dicom(**options)[:300]
    if kind == "bad_header":
        rng = np.random.default_rng(7)
        junk = bytes(rng.integers(0, 256, 2000, dtype=np.uint8))
        return b"\0" * 128 + b"DICM" + b"\x02\x00\x10\x00UI\xff\x7f" + junk
    if kind == "corrupt_frame":
        # A frame cut short in transfer: the JPEG 2000 codestream loses its second half
        # (and its EOC marker), re-encapsulated with consistent item lengths.
        ds = make_dicom_dataset(compress="jpeg2000", **options)
        frame = next(generate_frames(ds.PixelData, number_of_frames=1))
        ds.PixelData = encapsulate([frame[: len(frame) // 2]])
        return dataset_bytes(ds)
    ds = make_dicom_dataset(**options)
    if kind == "bad_pixels":
        ds.Rows = ds.Rows + 10
    elif kind == "missing_rows":
        del ds.Rows
    elif kind == "bad_bits":
        ds.BitsStored = ds.BitsAllocated + 4
        ds.HighBit = ds.BitsStored - 1
    else:
        raise ValueError(f"unknown malformed kind {kind!r}; expected one of {MALFORMED_KINDS}")
    return dataset_bytes(ds)


def _test_patient_dataset(sop_class: str, transfer_syntax: str, *, modality: str) -> Dataset:
    """A dataset of a fixed test patient in a new study, for the non-radiograph files."""
    sop_uid = generate_uid()
    ds = Dataset()
    ds.file_meta = _file_meta(sop_class, sop_uid, transfer_syntax)
    ds.SOPClassUID = sop_class
    ds.Modality = modality
    _patient_and_study(
        ds,
        patient_name="Test^Patient",
        patient_id="PID-0001",
        birth_date="19600101",
        sex="F",
        age="064Y",
        study_uid=generate_uid(),
        series_uid=generate_uid(),
        sop_uid=sop_uid,
        study_date="20240131",
        accession="ACC-0001",
    )
    return ds


def make_unsupported_transfer_syntax_dicom(transfer_syntax: str = MPEG4HP41) -> bytes:
    """A video DICOM declaring MPEG-4 AVC/H.264 (by default) with dummy encapsulated data."""
    video = "1.2.840.10008.5.1.4.1.1.77.1.4.1"  # Video Photographic Image Storage
    ds = _test_patient_dataset(video, transfer_syntax, modality="XC")
    ds.SamplesPerPixel = 3
    ds.PhotometricInterpretation = "YBR_PARTIAL_420"
    ds.PlanarConfiguration = 0
    ds.Rows = 64
    ds.Columns = 64
    ds.BitsAllocated = 8
    ds.BitsStored = 8
    ds.HighBit = 7
    ds.PixelRepresentation = 0
    ds.NumberOfFrames = 10
    ds.FrameIncrementPointer = 0x00181063
    ds.FrameTime = 40.0
    # A fake H.264 stream: start codes and an SPS/PPS/IDR shape, not decodable.
    sps, pps = b"\x00\x00\x00\x01\x67\x64\x00\x29", b"\x00\x00\x00\x01\x68\xee"
    stream = sps + pps + b"\x00\x00\x01\x65" + bytes(200)
    ds.PixelData = encapsulate([stream], has_bot=False)
    ds["PixelData"].VR = "OB"
    ds["PixelData"].is_undefined_length = True
    return dataset_bytes(ds)


def make_sr_dicom(text: str = "No acute cardiopulmonary abnormality.") -> bytes:
    """A Basic Text Structured Report: a valid DICOM file with no image."""
    ds = _test_patient_dataset(BasicTextSRStorage, ExplicitVRLittleEndian, modality="SR")
    ds.ValueType = "CONTAINER"
    ds.ContinuityOfContent = "SEPARATE"
    ds.CompletionFlag = "COMPLETE"
    ds.VerificationFlag = "UNVERIFIED"
    title = Dataset()
    title.CodeValue = "18748-4"
    title.CodingSchemeDesignator = "LN"
    title.CodeMeaning = "Diagnostic Imaging Report"
    ds.ConceptNameCodeSequence = Sequence([title])
    item = Dataset()
    item.RelationshipType = "CONTAINS"
    item.ValueType = "TEXT"
    concept = Dataset()
    concept.CodeValue = "121071"
    concept.CodingSchemeDesignator = "DCM"
    concept.CodeMeaning = "Finding"
    item.ConceptNameCodeSequence = Sequence([concept])
    item.TextValue = text
    ds.ContentSequence = Sequence([item])
    return dataset_bytes(ds)


# --------------------------------------------------------------------------- PNG / JPEG


def _raster(
    pixels: np.ndarray | None, seed: int, rows: int, cols: int, mode: str
) -> Image.Image:
    if pixels is None:
        pixels = chest_phantom(seed, rows, cols)
    pixels = np.asarray(pixels)
    if pixels.dtype.kind == "f":
        if mode == "I;16":
            pixels = np.rint(np.clip(pixels, 0, 1) * 65535).astype(np.uint16)
        else:
            pixels = np.rint(np.clip(pixels, 0, 1) * 255).astype(np.uint8)
    if mode == "I;16":
        return Image.fromarray(pixels.astype(np.uint16))  # Pillow picks I;16
    gray = Image.fromarray(pixels.astype(np.uint8))
    return gray if mode == "L" else gray.convert(mode)


def make_png(
    pixels: np.ndarray | None = None,
    *,
    seed: int = 0,
    rows: int = 256,
    cols: int = 256,
    mode: str = "L",
) -> bytes:
    """PNG bytes of ``pixels`` (float in [0, 1] or integers) or of a chest phantom.
    ``mode`` is a Pillow mode: "L" (8-bit gray), "I;16" (16-bit gray), "RGB", "RGBA", "P"."""
    buffer = io.BytesIO()
    _raster(pixels, seed, rows, cols, mode).save(buffer, format="PNG")
    return buffer.getvalue()


def make_jpeg(
    pixels: np.ndarray | None = None,
    *,
    seed: int = 0,
    rows: int = 256,
    cols: int = 256,
    mode: str = "L",
    quality: int = 92,
) -> bytes:
    """JPEG bytes of ``pixels`` or of a chest phantom; ``mode`` "L" or "RGB"."""
    buffer = io.BytesIO()
    _raster(pixels, seed, rows, cols, mode).save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()
