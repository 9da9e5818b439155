"""Device and dtype choice for torch backends, decided when a backend loads (never at import)."""
from __future__ import annotations

from typing import Any

from .errors import BackendLoadError


def resolve_device(option: str, setting: str) -> str:
    """'auto' → 'cuda' when a GPU is visible, else 'cpu'. An explicit GPU must exist."""
    import torch  # noqa: PLC0415 - defer torch

    option = (option or "auto").lower()
    if option == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if option == "cpu":
        return "cpu"
    if not torch.cuda.is_available():
        raise BackendLoadError(f"{setting}: device={option} but no CUDA device is visible to "
                               "this process (use device=cpu or device=auto)")
    if ":" in option:
        index = int(option.split(":", 1)[1])
        if index >= torch.cuda.device_count():
            raise BackendLoadError(f"{setting}: device={option} but only "
                                   f"{torch.cuda.device_count()} CUDA device(s) are visible")
    return option


def native_bfloat16(device: str) -> bool:
    """Whether ``device`` multiplies bfloat16 matrices in hardware: a GPU that supports it, or a
    CPU with AVX512-BF16 or AMX. Elsewhere bfloat16 is emulated and slower than float32."""
    import torch  # noqa: PLC0415 - defer torch

    if device.startswith("cuda"):
        with torch.cuda.device(torch.device(device).index or 0):
            return bool(torch.cuda.is_bf16_supported())
    # torch.cpu has no public probe for these instruction sets; absent ones mean "no"
    probes = (getattr(torch.cpu, "_is_avx512_bf16_supported", None),
              getattr(torch.cpu, "_is_amx_tile_supported", None))
    return any(bool(probe()) for probe in probes if probe is not None)


def resolve_embedding_precision(option: str, device: str) -> str:
    """A sentence embedder's precision: 'auto' → bfloat16 where ``device`` computes it
    natively, else float32; or 'float32' / 'bfloat16' as asked."""
    option = (option or "auto").lower()
    if option == "auto":
        return "bfloat16" if native_bfloat16(device) else "float32"
    return option


def resolve_dtype(option: str, device: str) -> Any:
    """'auto' → bfloat16 on a GPU that supports it, float16 on an older GPU, float32 on CPU."""
    import torch  # noqa: PLC0415 - defer torch

    option = (option or "auto").lower()
    if option == "auto":
        if device.startswith("cuda"):
            index = torch.device(device).index or 0
            with torch.cuda.device(index):
                return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    return {"float32": torch.float32, "bfloat16": torch.bfloat16,
            "float16": torch.float16}[option]
