"""generator role: a Hugging Face vision-language model from a local folder
(``transformers:/folder``).

The folder holds the model (config.json, weights), its processor (image processor + tokenizer)
and a chat template with image placeholders: what ``model.save_pretrained`` and
``processor.save_pretrained`` write. Loaded with ``AutoModelForImageTextToText``, or with the
class that config.json's ``architectures`` names when the auto class does not know the model.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Any

from .devices import resolve_device, resolve_dtype
from .errors import BackendLoadError, BackendRequestError
from .images import study_content, to_pil_rgb
from .roles import ImageInput
from .spec import BackendSpec
from .transformers_llm import render_chat, sampling_config

log = logging.getLogger(__name__)


class TransformersGenerator:
    """A local vision-language model behind the ``Generator`` interface.

    n samples come from one ``generate`` call with ``num_return_sequences=n``; at temperature 0
    the greedy report is computed once and repeated n times.
    """

    def __init__(self, spec: BackendSpec) -> None:
        import torch  # noqa: PLC0415 - defer torch
        from transformers import AutoProcessor  # noqa: PLC0415 - defer transformers

        self.spec = spec
        self.name: str = spec.option("name") or spec.path.name
        self.device = resolve_device(spec.option("device"), spec.setting)
        self.dtype = resolve_dtype(spec.option("dtype"), self.device)
        self.max_new_tokens_cap: int = spec.option("max_new_tokens")
        started = time.perf_counter()
        self.remote_code = bool(spec.option("trust_remote_code"))
        processor = AutoProcessor.from_pretrained(str(spec.path), local_files_only=True,
                                                  trust_remote_code=self.remote_code)
        tokenizer = getattr(processor, "tokenizer", None)
        if tokenizer is None:
            raise BackendLoadError(f"{spec.setting}: {spec.path} holds an image processor "
                                   "but no tokenizer; is it a vision-language model?")
        if not getattr(processor, "chat_template", None):
            if getattr(tokenizer, "chat_template", None):
                processor.chat_template = tokenizer.chat_template
            else:
                raise BackendLoadError(f"{spec.setting}: {spec.path} has no chat template")
        if tokenizer.pad_token_id is None and tokenizer.eos_token is not None:
            tokenizer.pad_token = tokenizer.eos_token
        self.processor = processor
        self.tokenizer = tokenizer
        self.model = self._load_model(spec).to(self.device).eval()
        self._torch = torch
        self._lock = threading.Lock()
        log.info("%s: loaded %s on %s (%s) in %.1f s", spec.setting, self.name, self.device,
                 str(self.dtype).replace("torch.", ""), time.perf_counter() - started)

    def _load_model(self, spec: BackendSpec) -> Any:
        import transformers  # noqa: PLC0415 - defer transformers
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText  # noqa: PLC0415 - defer transformers

        path = str(spec.path)
        options = {"local_files_only": True, "dtype": self.dtype,
                   "trust_remote_code": self.remote_code}
        try:
            return AutoModelForImageTextToText.from_pretrained(path, **options)
        except ValueError as auto_error:
            config = AutoConfig.from_pretrained(path, local_files_only=True,
                                                trust_remote_code=self.remote_code)
            for architecture in getattr(config, "architectures", None) or []:
                model_class = getattr(transformers, architecture, None)
                if model_class is not None:
                    return model_class.from_pretrained(path, **options)
            if self.remote_code:
                # Remote-code VLMs (MAIRA-2, CheXagent) register as causal LMs.
                return AutoModelForCausalLM.from_pretrained(path, **options)
            raise BackendLoadError(f"{spec.setting}: {spec.path} is not a vision-language model "
                                   f"that transformers can load ({auto_error})") from auto_error

    def _to_device(self, value: Any) -> Any:
        if not isinstance(value, self._torch.Tensor):
            return value
        if value.is_floating_point():
            return value.to(self.device, self.dtype)
        return value.to(self.device)

    def generate(self, images: list[ImageInput], prompt: str, *, temperature: float, n: int,
                 max_tokens: int = 256) -> list[str]:
        if not images:
            raise ValueError("generate() needs at least one image")
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        torch = self._torch
        messages = [{"role": "user",
                     "content": study_content(images, prompt, lambda _: {"type": "image"})}]
        text = render_chat(self.processor, messages)
        # One sample holding all of the study's images: the nested form every processor reads
        # that way (a flat list is a batch of single-image samples to some of them).
        encoded = self.processor(images=[[to_pil_rgb(image.pixels) for image in images]],
                                 text=[text], return_tensors="pt")
        inputs = {key: self._to_device(value) for key, value in encoded.items()}
        greedy = temperature <= 0
        sequences = 1 if greedy else n
        config = sampling_config(self.model.generation_config, temperature=temperature, top_p=1.0,
                                 max_new_tokens=min(max_tokens, self.max_new_tokens_cap),
                                 pad_token_id=self.tokenizer.pad_token_id,
                                 num_return_sequences=sequences)
        try:
            with self._lock, torch.inference_mode():
                output = self.model.generate(**inputs, generation_config=config)
        except torch.cuda.OutOfMemoryError as exc:
            raise BackendRequestError(f"{self.spec.setting}: out of GPU memory sampling {n} "
                                      "reports") from exc
        new_tokens = output[:, inputs["input_ids"].shape[1]:]
        reports = [report.strip() for report in
                   self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)]
        return reports * n if greedy else reports
