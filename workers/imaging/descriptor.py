"""The built-in appearance descriptor: the image-encoder role's embedded default.

``builtin-appearance-v1`` has NO LEARNED WEIGHTS. It is a fixed, hand-designed summary of how
a radiograph looks, deterministic and identical on every machine, so image retrieval works out
of the box with nothing to download. It finds near-copies and images with a similar layout of
densities; it knows nothing about disease, and the UI must say so.

Recipe (all on the display pixels, bright = dense):

1. Resample to 128 × 128 with area averaging (aspect not kept) and blur lightly (σ = 1 px)
   against noise. Then re-frame: resample again around the centroid of the cubed equalised
   intensity, two weighted standard deviations each way in x and y. The frame follows the
   dense central anatomy, so a shifted or slightly cropped copy lands on nearly the same
   grid (the outermost lateral margins of a wide image may fall outside it).
2. Two intensity normalisations, both blind to brightness and contrast settings:
   histogram equalisation (each pixel replaced by its rank, ties sharing the mean rank),
   also blind to gamma; and a robust linear stretch (1st to 99th percentile) for gradients,
   which equalisation would inflate in flat, noisy regions.
3. Features, each block centred or power-normalised, scaled to unit length and weighted:
   - layout: mean equalised intensity in 4 × 4, 8 × 8 and 16 × 16 cells (16 + 64 + 256);
   - texture: standard deviation of the equalised image in 8 × 8 cells (64);
   - shape: gradient-orientation histograms (HOG-like, 6 unsigned orientation bins with
     linear vote splitting, magnitude-weighted, square-rooted) in 4 × 4 cells of a 64 × 64
     copy (96), and one 16-bin histogram over the whole image (16).
   That is exactly 512 numbers, so no projection is needed.
4. Concatenate and L2-normalise: cosine similarity is a dot product.
"""
from __future__ import annotations

import numpy as np
from PIL import Image
from scipy.ndimage import gaussian_filter, map_coordinates

from .display import as_unit_float

APPEARANCE_DESCRIPTOR_NAME = "builtin-appearance-v1"
DESCRIPTOR_DIM = 512
DIM = DESCRIPTOR_DIM  # the name the image-encoder role adapter looks for

_SIZE = 128
_HOG_SIZE = 64
_HOG_CELLS = 4
_HOG_BINS = 6
_GLOBAL_BINS = 16
_BLUR = 1.0  # pixels of the 128 x 128 copy
_FRAME_SPREAD = 2.0  # standard deviations each side of the centroid

# Block weights (relative importance after each block is scaled to unit length).
# Block weights (relative importance after each block is scaled to unit length), chosen on
# synthetic chest phantoms for the worst case over the alterations in the tests.
_WEIGHTS = {
    "mean4": 0.5,
    "mean8": 1.0,
    "mean16": 1.0,
    "std8": 0.3,
    "hog": 0.6,
    "orient": 0.2,
}


def describe(pixels: np.ndarray) -> np.ndarray:
    """The 512-d float32, L2-normalised appearance descriptor of a 2-D grayscale image
    (float display pixels in [0, 1] or uint8), or of a DicomImage/RasterImage's pixels.
    Deterministic; no learned weights."""
    array = getattr(pixels, "pixels", pixels)
    array = as_unit_float(array)
    if array.ndim != 2 or min(array.shape) < 2:
        raise ValueError(f"expected a 2-D grayscale image, got shape {array.shape}")

    small = _resample(array, _SIZE)
    small = gaussian_filter(small, sigma=_BLUR, mode="nearest")
    # Cubed equalised intensity: the dense central structures (mediastinum, spine, heart)
    # anchor the frame; the image borders, which crops change, weigh little.
    small = _normalise_frame(small, _equalise(small) ** 3)
    equalised = _equalise(small)
    stretched = _stretch(small)

    mean4 = _cell_stat(equalised, 4, np.mean)
    mean8 = _cell_stat(equalised, 8, np.mean)
    mean16 = _cell_stat(equalised, 16, np.mean)
    blocks = {
        "mean4": _centred(mean4),
        "mean8": _centred(mean8),
        "mean16": _centred(mean16),
        "std8": _centred(_cell_stat(equalised, 8, np.std)),
    }
    hog, orient = _orientation_histograms(_resample(stretched, _HOG_SIZE))
    blocks["hog"] = hog
    blocks["orient"] = orient

    parts = [_unit(blocks[name]) * weight for name, weight in _WEIGHTS.items()]
    vector = _unit(np.concatenate(parts).astype(np.float64))
    if not vector.any():  # a blank image: every block is zero; keep the unit-length promise
        vector = np.full(DESCRIPTOR_DIM, DESCRIPTOR_DIM ** -0.5)
    return vector.astype(np.float32)


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two descriptors (they are unit vectors)."""
    return float(np.dot(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)))


# --------------------------------------------------------------------------- steps


def _resample(array: np.ndarray, size: int) -> np.ndarray:
    image = Image.fromarray(np.ascontiguousarray(array, dtype=np.float32))
    return np.asarray(image.resize((size, size), Image.Resampling.BOX), dtype=np.float64)


def _normalise_frame(array: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Resample ``array`` onto a frame centred on the intensity centroid of ``weights`` and
    spanning _FRAME_SPREAD standard deviations each way, so shifts and crops move it less."""
    size = array.shape[0]
    total = weights.sum()
    if total <= 1e-9:
        return array
    ys, xs = np.indices(array.shape, dtype=np.float64)
    cy, cx = (weights * ys).sum() / total, (weights * xs).sum() / total
    sy = np.sqrt((weights * (ys - cy) ** 2).sum() / total)
    sx = np.sqrt((weights * (xs - cx) ** 2).sum() / total)
    grid = (np.arange(size) + 0.5) / size * 2 - 1  # -1..1
    rows = cy + grid * _FRAME_SPREAD * sy
    cols = cx + grid * _FRAME_SPREAD * sx
    coords = np.meshgrid(rows, cols, indexing="ij")
    return map_coordinates(array, coords, order=1, mode="nearest")


def _equalise(array: np.ndarray) -> np.ndarray:
    """Rank transform to [0, 1]; equal values share their mean rank."""
    flat = array.reshape(-1)
    values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True)
    starts = np.cumsum(counts) - counts
    mean_rank = starts + (counts - 1) / 2.0
    return (mean_rank[inverse] / max(flat.size - 1, 1)).reshape(array.shape)


def _stretch(array: np.ndarray) -> np.ndarray:
    low, high = np.percentile(array, [1.0, 99.0])
    if high <= low:
        return np.zeros_like(array)
    return np.clip((array - low) / (high - low), 0.0, 1.0)


def _cell_stat(array: np.ndarray, cells: int, stat) -> np.ndarray:
    size = array.shape[0] // cells
    blocks = array.reshape(cells, size, cells, size)
    return stat(blocks, axis=(1, 3)).reshape(-1)


def _centred(vector: np.ndarray) -> np.ndarray:
    return vector - vector.mean()


def _orientation_histograms(array: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    gy, gx = np.gradient(array)
    magnitude = np.hypot(gx, gy)
    angle = np.mod(np.arctan2(gy, gx), np.pi)  # unsigned: an edge is an edge either way

    # Per-cell histograms with each vote split between the two nearest bins.
    position = angle / np.pi * _HOG_BINS - 0.5
    lower = np.floor(position).astype(np.int64)
    upper_share = position - lower
    lower %= _HOG_BINS
    upper = (lower + 1) % _HOG_BINS
    size = array.shape[0] // _HOG_CELLS
    rows, cols = np.indices(array.shape)
    cell = (rows // size) * _HOG_CELLS + (cols // size)
    hog = np.zeros(_HOG_CELLS * _HOG_CELLS * _HOG_BINS)
    np.add.at(hog, cell * _HOG_BINS + lower, magnitude * (1 - upper_share))
    np.add.at(hog, cell * _HOG_BINS + upper, magnitude * upper_share)

    global_bins = np.minimum((angle / np.pi * _GLOBAL_BINS).astype(np.int64), _GLOBAL_BINS - 1)
    orient = np.bincount(
        global_bins.reshape(-1), weights=magnitude.reshape(-1), minlength=_GLOBAL_BINS
    )
    return np.sqrt(hog), np.sqrt(orient)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 1e-12 else np.zeros_like(vector)
