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
