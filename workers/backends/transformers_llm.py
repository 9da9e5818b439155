"""llm role: a Hugging Face causal language model from a local folder (``transformers:/folder``).

The folder is what ``save_pretrained`` writes (or a hub snapshot copied by hand): config.json,
weights, tokenizer files and a chat template. Nothing is fetched: every load passes
``local_files_only=True``.
"""
from __future__ import annotations

import copy
import logging
import threading
import time
from typing import Any

from .devices import resolve_device, resolve_dtype
from .errors import BackendLoadError, BackendRequestError
from .roles import Message
from .spec import BackendSpec

log = logging.getLogger(__name__)


def sampling_config(base: Any, *, temperature: float, top_p: float, max_new_tokens: int,
                    pad_token_id: int | None, num_return_sequences: int = 1) -> Any:
    """A copy of the model's generation config set for greedy (temperature 0) or plain sampling.

    Sampling is temperature + top-p only: the model's own top-k / min-p defaults are switched
    off so that a temperature means the same thing here as on an OpenAI-compatible server.
    """
    config = copy.deepcopy(base)
    config.max_new_tokens = max_new_tokens
    config.max_length = None
    config.num_return_sequences = num_return_sequences
    config.num_beams = 1
    if pad_token_id is not None:
        config.pad_token_id = pad_token_id
    if temperature <= 0:
        config.do_sample = False
        config.temperature = None
        config.top_p = None
        config.top_k = None
        config.min_p = None
    else:
        config.do_sample = True
        config.temperature = float(temperature)
        config.top_p = float(top_p)
        config.top_k = 0
        config.min_p = None
    return config


def render_chat(template_owner: Any, messages: list[Message]) -> str:
    """Render messages with the model's chat template, generation prompt appended.

    Some templates refuse a system turn; the system text then leads the first user turn.
    """
    try:
        return template_owner.apply_chat_template(messages, tokenize=False,
                                                  add_generation_prompt=True)
    except Exception as exc:  # jinja2 TemplateError: the template rejects a system role
        if not messages or messages[0].get("role") != "system":
            raise
        log.info("chat template refused a system message (%s); folding it into the user turn",
                 exc)
        system, rest = messages[0], list(messages[1:])
        if rest and rest[0].get("role") == "user" and isinstance(rest[0].get("content"), str):
            rest[0] = {"role": "user", "content": f"{system['content']}\n\n{rest[0]['content']}"}
        else:
            rest.insert(0, {"role": "user", "content": system["content"]})
        return template_owner.apply_chat_template(rest, tokenize=False,
                                                  add_generation_prompt=True)


class TransformersTextModel:
    """A local causal LM behind the ``TextModel`` interface.

    Batches are left-padded so every prompt ends where generation starts. One generate call
    runs at a time per process (a lock), which keeps GPU memory predictable when a threaded
    worker shares the model.
    """

    def __init__(self, spec: BackendSpec) -> None:
        import torch  # noqa: PLC0415 - defer torch
        from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: PLC0415 - defer transformers

        self.spec = spec
        self.name: str = spec.option("name") or spec.path.name
        self.device = resolve_device(spec.option("device"), spec.setting)
        self.dtype = resolve_dtype(spec.option("dtype"), self.device)
        self.max_new_tokens_cap: int = spec.option("max_new_tokens")
        self.batch_size: int = spec.option("batch_size")
        started = time.perf_counter()
        remote_code = bool(spec.option("trust_remote_code"))
        tokenizer = AutoTokenizer.from_pretrained(str(spec.path), local_files_only=True,
                                                  trust_remote_code=remote_code)
        if not getattr(tokenizer, "chat_template", None):
            raise BackendLoadError(f"{spec.setting}: the tokenizer in {spec.path} has no chat "
                                   "template; use an instruction-tuned model")
        tokenizer.padding_side = "left"
        if tokenizer.pad_token_id is None:
            if tokenizer.eos_token is None:
                raise BackendLoadError(f"{spec.setting}: the tokenizer in {spec.path} has "
                                       "neither a pad nor an end-of-sequence token")
            tokenizer.pad_token = tokenizer.eos_token
        self.tokenizer = tokenizer
        # Does plain tokenisation add a BOS that the rendered template lacks? Then add it.
        probe_ids = tokenizer("x")["input_ids"]
        self._bos = (tokenizer.bos_token if tokenizer.bos_token_id is not None
                     and probe_ids and probe_ids[0] == tokenizer.bos_token_id else None)
        model = AutoModelForCausalLM.from_pretrained(str(spec.path), local_files_only=True,
                                                     dtype=self.dtype,
                                                     trust_remote_code=remote_code)
        self.model = model.to(self.device).eval()
        self._torch = torch
        self._lock = threading.Lock()
        log.info("%s: loaded %s on %s (%s) in %.1f s", spec.setting, self.name, self.device,
                 str(self.dtype).replace("torch.", ""), time.perf_counter() - started)

    def _prompt_text(self, messages: list[Message]) -> str:
        text = render_chat(self.tokenizer, messages)
        if self._bos and not text.startswith(self._bos):
            text = self._bos + text
        return text

    def complete(self, messages: list[Message], *, temperature: float = 0.0, top_p: float = 1.0,
                 max_tokens: int = 512, json_schema: dict | None = None) -> str:
        return self.complete_many([messages], temperature=temperature, top_p=top_p,
                                  max_tokens=max_tokens)[0]

    def complete_many(self, conversations: list[list[Message]], *, temperature: float = 0.0,
                      top_p: float = 1.0, max_tokens: int = 512,
                      json_schema: dict | None = None) -> list[str]:
        if not conversations:
            return []
        texts = [self._prompt_text(messages) for messages in conversations]
        lengths = [len(ids) for ids in self.tokenizer(texts, add_special_tokens=False)["input_ids"]]
        # Similar lengths share a batch, so little compute goes to padding.
        order = sorted(range(len(texts)), key=lambda i: lengths[i])
        replies: list[str | None] = [None] * len(texts)
        for start in range(0, len(order), self.batch_size):
            chunk = order[start:start + self.batch_size]
            outputs = self._generate([texts[i] for i in chunk], temperature=temperature,
                                     top_p=top_p, max_tokens=max_tokens)
            for index, output in zip(chunk, outputs):
                replies[index] = output
        return [reply or "" for reply in replies]

    def _generate(self, texts: list[str], *, temperature: float, top_p: float,
                  max_tokens: int) -> list[str]:
        torch = self._torch
        encoded = self.tokenizer(texts, return_tensors="pt", padding=True,
                                 add_special_tokens=False).to(self.device)
        config = sampling_config(self.model.generation_config, temperature=temperature,
                                 top_p=top_p,
                                 max_new_tokens=min(max_tokens, self.max_new_tokens_cap),
                                 pad_token_id=self.tokenizer.pad_token_id)
        try:
            with self._lock, torch.inference_mode():
                output = self.model.generate(**encoded, generation_config=config)
        except torch.cuda.OutOfMemoryError as exc:
            raise BackendRequestError(f"{self.spec.setting}: out of GPU memory generating a "
                                      f"batch of {len(texts)}; lower batch_size") from exc
        new_tokens = output[:, encoded["input_ids"].shape[1]:]
        return [text.strip() for text in
                self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)]
