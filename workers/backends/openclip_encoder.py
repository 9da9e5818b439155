"""image_encoder role: an open_clip image tower (BiomedCLIP architecture) from a local folder.

The folder follows the hub layout of ``microsoft/BiomedCLIP-PubMedBERT_256-vit_base_patch16_224``:
``open_clip_config.json`` (``model_cfg`` and ``preprocess_cfg``) and the weights
(``open_clip_pytorch_model.bin`` or a ``.safetensors`` file). Only the image tower is built:
BiomedCLIP's text tower would ask the hub for its BERT config, and retrieval by image needs
only image embeddings. The tower is built with ``open_clip.model._build_vision_tower`` (the
function open_clip itself uses; private, so open-clip-torch is pinned) and loaded with the
checkpoint's ``visual.*`` weights, strictly.

Preprocessing follows the config: the grayscale [0, 1] image is resized (bicubic, antialiased)
as the config's ``resize_mode`` says — by default open_clip's: shortest side to the model's
input size, then centre-cropped — copied to three channels and normalised with the config's
mean and std. The option ``fit=letterbox`` keeps the whole image instead (longest side fitted,
black padding), which keeps the costophrenic angles of a tall radiograph in view;
``fit=crop`` / ``fit=squash`` force the other modes.
"""
from __future__ import annotations

import json
import logging
import threading
from typing import Any

import numpy as np

from .devices import resolve_device
from .errors import BackendLoadError
from .roles import l2_normalise
from .spec import OPEN_CLIP_WEIGHTS, BackendSpec

log = logging.getLogger(__name__)


class OpenClipImageEncoder:
    """``ImageEncoder`` over an open_clip vision tower. ``learned`` is True."""

    learned = True

    def __init__(self, spec: BackendSpec) -> None:
        import torch  # noqa: PLC0415 - defer torch
        from open_clip.constants import OPENAI_DATASET_MEAN, OPENAI_DATASET_STD  # noqa: PLC0415 - defer open_clip
        from open_clip.factory import load_state_dict  # noqa: PLC0415 - defer open_clip
        from open_clip.model import _build_vision_tower  # noqa: PLC0415 - defer open_clip

        self.spec = spec
        self.name: str = spec.option("name") or spec.path.name
        self.device = resolve_device(spec.option("device"), spec.setting)
        self.batch_size: int = spec.option("batch_size")
        config = json.loads((spec.path / "open_clip_config.json").read_text(encoding="utf-8"))
        model_cfg = config["model_cfg"]
        preprocess_cfg = config.get("preprocess_cfg") or {}
        vision_cfg = dict(model_cfg["vision_cfg"])
        vision_cfg["timm_model_pretrained"] = False  # weights come from the folder, never a hub
        self.dim = int(model_cfg["embed_dim"])
        tower = _build_vision_tower(self.dim, vision_cfg,
                                    quick_gelu=bool(model_cfg.get("quick_gelu", False)),
                                    cast_dtype=None)
        weights = next(spec.path / name for name in OPEN_CLIP_WEIGHTS
                       if (spec.path / name).is_file())
        state = load_state_dict(str(weights), device="cpu")
        visual = {key[len("visual."):]: value for key, value in state.items()
                  if key.startswith("visual.")}
        if not visual:
            raise BackendLoadError(f"{spec.setting}: {weights} holds no 'visual.*' weights "
                                   "(not an open_clip checkpoint?)")
        try:
            tower.load_state_dict(visual, strict=True)
        except RuntimeError as exc:
            raise BackendLoadError(f"{spec.setting}: the weights in {weights} do not fit the "
                                   f"image tower that open_clip_config.json describes: "
                                   f"{str(exc)[:500]}") from exc
        self.model = tower.to(self.device).eval()

        size = preprocess_cfg.get("size") or vision_cfg.get("image_size") or 224
        self.size: tuple[int, int] = (size, size) if isinstance(size, int) else tuple(size)
        self.mean = torch.tensor(preprocess_cfg.get("mean") or OPENAI_DATASET_MEAN).view(3, 1, 1)
        self.std = torch.tensor(preprocess_cfg.get("std") or OPENAI_DATASET_STD).view(3, 1, 1)
        self.interpolation: str = preprocess_cfg.get("interpolation") or "bicubic"
        fit = spec.option("fit") or "config"
        self.resize_mode: str = ({"crop": "shortest", "letterbox": "longest",
                                  "squash": "squash"}.get(fit)
                                 or preprocess_cfg.get("resize_mode") or "shortest")
        if self.interpolation not in ("bicubic", "bilinear", "nearest"):
            self.interpolation = "bicubic"
        self._torch = torch
        self._lock = threading.Lock()
        log.info("%s: loaded the %s image tower (%d-d) on %s", spec.setting, self.name, self.dim,
                 self.device)

    def preprocess(self, pixels: np.ndarray) -> Any:
        """(3, H, W) float32 tensor from a 2-D [0, 1] grayscale image."""
        torch = self._torch
        import torch.nn.functional as F  # noqa: PLC0415 - defer torch

        image = np.asarray(pixels, dtype=np.float32)
        if image.ndim != 2:
            raise ValueError(f"expected a 2-D grayscale image, got shape {image.shape}")
        tensor = torch.from_numpy(np.clip(image, 0.0, 1.0))[None, None]
        target_h, target_w = self.size
        height, width = image.shape
        options: dict[str, Any] = {"mode": self.interpolation}
        if self.interpolation != "nearest":
            options.update(align_corners=False, antialias=True)
        if self.resize_mode == "squash":
            resized = F.interpolate(tensor, size=(target_h, target_w), **options)
        elif self.resize_mode == "longest":
            scale = min(target_h / height, target_w / width)
            new_h, new_w = max(1, round(height * scale)), max(1, round(width * scale))
            inner = F.interpolate(tensor, size=(new_h, new_w), **options)
            resized = torch.zeros((1, 1, target_h, target_w))
            top, left = (target_h - new_h) // 2, (target_w - new_w) // 2
            resized[..., top:top + new_h, left:left + new_w] = inner
        else:
            scale = max(target_h / height, target_w / width)
            new_h, new_w = max(target_h, round(height * scale)), max(target_w, round(width * scale))
            resized = F.interpolate(tensor, size=(new_h, new_w), **options)
            top, left = (new_h - target_h) // 2, (new_w - target_w) // 2
            resized = resized[..., top:top + target_h, left:left + target_w]
        rgb = resized[0].clamp(0.0, 1.0).expand(3, -1, -1)
        return (rgb - self.mean) / self.std

    def encode(self, images: list[np.ndarray]) -> np.ndarray:
        torch = self._torch
        images = list(images)
        if not images:
            return np.zeros((0, self.dim), dtype=np.float32)
        chunks = []
        for start in range(0, len(images), self.batch_size):
            batch = torch.stack([self.preprocess(image)
                                 for image in images[start:start + self.batch_size]])
            with self._lock, torch.inference_mode():
                features = self.model(batch.to(self.device))
            if isinstance(features, tuple):  # towers configured to also return tokens
                features = features[0]
            chunks.append(features.float().cpu().numpy())
        return l2_normalise(np.concatenate(chunks))
