"""The version stored with a draft: the backend setting as the status page shows it, and for a
model in a local folder a fingerprint that changes with its configuration or weights."""
from __future__ import annotations

from workers.backends import parse_spec, registry


def test_the_builtin_generator_and_a_server_are_named_by_their_setting():
    assert registry.spec_version(parse_spec("generator", "builtin")) == "builtin"
    served = parse_spec("generator", "openai:http://user:secret@gpu:8000/v1?model=maira-2")
    version = registry.spec_version(served)
    assert version.startswith("openai:http://gpu:8000/v1") and "maira-2" in version
    assert "secret" not in version
    assert registry.version_of("generator") == "builtin"  # the default


def test_a_local_model_gets_a_fingerprint_of_its_files(tmp_path):
    folder = tmp_path / "vlm"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "x", "hidden_size": 8}')
    (folder / "model.safetensors").write_bytes(b"\0" * 64)
    spec = parse_spec("generator", f"transformers:{folder}")
    first = registry.spec_version(spec)
    assert first.startswith(f"transformers:{folder} #") and len(first.split("#")[1]) == 12
    assert registry.spec_version(spec) == first  # the same files, the same version
    (folder / "model.safetensors").write_bytes(b"\0" * 65)  # retrained: other weights
    second = registry.spec_version(spec)
    (folder / "config.json").write_text('{"model_type": "x", "hidden_size": 16}')
    assert len({first, second, registry.spec_version(spec)}) == 3
