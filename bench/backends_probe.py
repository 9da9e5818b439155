"""Load every model role and time real requests through it. Prints figures; asserts nothing.

    .venv/bin/python bench/backends_probe.py                 # roles as RADREVIEW_* set them
    .venv/bin/python bench/backends_probe.py --tiny          # tiny random models, CPU
    .venv/bin/python bench/backends_probe.py --tiny --device cuda   # the same on a GPU

For each role: load time, the status-page probe's latency (median of --repeat), and one
workload: 256 sentences embedded, 32 images (512 x 512) encoded, 8 prompts completed in one
batch, n = 10 reports sampled for a two-view study. With --tiny, the llm, generator and image
encoder are the test suite's tiny random models (numbers measure the plumbing, not a model).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402

from workers.backends import ImageInput, registry  # noqa: E402
from workers.prompts import get_prompt  # noqa: E402


def tiny_settings(folder: Path, device: str) -> dict[str, str]:
    from tests.support import tiny_models as tiny

    llm = tiny.build_llm(folder / "tiny-llama")
    vlm = tiny.build_vlm(folder / "tiny-llava")
    clip = tiny.build_biomedclip_like(folder / "tiny-biomedclip")
    return {"llm": f"transformers:{llm}?device={device}&max_new_tokens=32",
            "generator": f"transformers:{vlm}?device={device}&max_new_tokens=64",
            "text_embedder": "builtin",
            "image_encoder": f"open_clip:{clip}?device={device}",
            "extractor": "builtin"}


def timed(function, *args, **kwargs) -> tuple[float, object]:
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - started, result


def workload(role: str, model) -> str:
    rng = np.random.default_rng(0)
    if model is None:
        return "built-in: no model workload"
    if role == "text_embedder":
        sentences = [f"There is a small {side} pleural effusion number {i}."
                     for i, side in zip(range(256), ["left", "right"] * 128)]
        seconds, _ = timed(model.embed, sentences)
        return f"256 sentences in {seconds:.2f} s ({256 / seconds:.0f}/s)"
    if role == "image_encoder":
        images = [rng.random((512, 512), dtype=np.float32) for _ in range(32)]
        seconds, _ = timed(model.encode, images)
        return f"32 images in {seconds:.2f} s ({32 / seconds:.1f}/s)"
    if role == "llm":
        conversations = [[{"role": "user", "content": f"Is finding {i} an effusion? Answer."}]
                         for i in range(8)]
        seconds, _ = timed(model.complete_many, conversations, max_tokens=32)
        return f"8 prompts, 32 tokens max, in {seconds:.2f} s"
    if role == "generator":
        study = [ImageInput(rng.random((512, 512), dtype=np.float32), "PA"),
                 ImageInput(rng.random((512, 400), dtype=np.float32), "LATERAL")]
        prompt = get_prompt("report_generation").text()
        seconds, _ = timed(model.generate, study, prompt, temperature=1.0, n=10, max_tokens=64)
        return f"n=10 reports, 64 tokens max, in {seconds:.2f} s"
    if role == "extractor":
        seconds, _ = timed(model.extract, "Small left pleural effusion. No pneumothorax. " * 5)
        return f"a 10-sentence report in {seconds * 1000:.1f} ms"
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="use tiny random models")
    parser.add_argument("--device", default="cpu", help="device for --tiny (cpu, cuda)")
    parser.add_argument("--repeat", type=int, default=5, help="probes per role")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        if args.tiny:
            registry.configure(tiny_settings(Path(scratch), args.device))
        else:
            registry.configure_from_environ()
        print(f"{'role':<14} {'kind':<22} {'model':<36} {'load s':>7} {'probe ms':>9}  workload")
        for status in registry.describe():
            role = status.role
            try:
                load_seconds, model = timed(registry.get, role)
            except Exception as exc:  # a figure for each role even when one cannot load
                print(f"{role:<14} {status.kind:<22} {status.model[:36]:<36} load failed: {exc}")
                continue
            latencies = [registry.probe(role).latency_s for _ in range(args.repeat)]
            probe_ms = statistics.median(latencies) * 1000
            name = getattr(model, "name", None) or status.model
            print(f"{role:<14} {status.kind:<22} {name[:36]:<36} {load_seconds:7.2f} "
                  f"{probe_ms:9.1f}  {workload(role, model)}")


if __name__ == "__main__":
    main()
