"""The trained key-phrase retriever: the loss falls on a tiny synthetic set, checkpoints reload."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

from workers.rarrg.retriever import (
    RetrieverConfig,
    TrainingExample,
    build_model,
    load_checkpoint,
    matching,
    retriever_loss,
    save_checkpoint,
    train,
)

PHRASES = 10
TEXT_DIM = 16


def synthetic(seed: int = 0, n: int = 48):
    """Images whose two fused feature sources are noisy sums of their phrases' signatures."""
    rng = np.random.default_rng(seed)
    bank = rng.normal(size=(PHRASES, TEXT_DIM))
    bank /= np.linalg.norm(bank, axis=1, keepdims=True)
    first, second = rng.normal(size=(PHRASES, 24)), rng.normal(size=(PHRASES, 8))
    examples = []
    for _ in range(n):
        ids = sorted(rng.choice(PHRASES, size=int(rng.integers(1, 4)), replace=False).tolist())
        examples.append(TrainingExample(
            [(first[ids].sum(0) + 0.1 * rng.normal(size=24)).astype(np.float32),
             (second[ids].sum(0) + 0.1 * rng.normal(size=8)).astype(np.float32)], ids))
    return examples, bank.astype(np.float32)


def config() -> RetrieverConfig:
    return RetrieverConfig(feature_dims=(24, 8), text_dim=TEXT_DIM, d_model=32, queries=6,
                           layers=1, heads=2, dropout=0.0, noise=0.05,
                           phrases=[f"phrase {i}" for i in range(PHRASES)])


def test_training_a_few_steps_makes_the_loss_fall():
    examples, bank = synthetic()
    torch.manual_seed(0)
    model = build_model(config())
    losses = train(model, examples, bank, epochs=15, batch_size=16, lr=3e-3, seed=0)
    assert len(losses) == 45
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5]), losses


def test_the_hungarian_matching_is_one_to_one():
    examples, bank = synthetic(n=4)
    model = build_model(config())
    features = [torch.as_tensor(np.stack([e.features[s] for e in examples])) for s in range(2)]
    select, semantic = model(features)
    assert select.shape == (4, 6) and semantic.shape == (4, 6, TEXT_DIM)
    targets = [torch.as_tensor(bank[e.phrase_ids]) for e in examples]
    for (rows, cols), example in zip(matching(select, semantic, targets, model.config), examples):
        assert len(set(rows)) == len(rows) == len(example.phrase_ids)
        assert sorted(cols) == list(range(len(example.phrase_ids)))
    loss, parts = retriever_loss(model, features,
                                 [torch.as_tensor(e.phrase_ids) for e in examples],
                                 torch.as_tensor(bank))
    assert loss.requires_grad and set(parts) == {"select", "semantic", "contrastive", "total"}


def test_a_checkpoint_reloads_to_the_same_model(tmp_path):
    examples, bank = synthetic(seed=1)
    model = build_model(config())
    train(model, examples, bank, epochs=8, batch_size=16, lr=3e-3, seed=1)
    path = tmp_path / "retriever.pt"
    save_checkpoint(model, path)
    reloaded = load_checkpoint(path)
    assert reloaded.config == model.config
    features = [e.features[s][None] for s in range(2) for e in examples[:1]]
    texts = model.config.phrases
    assert reloaded.retrieve(features, bank, texts, threshold=0.0) == \
        model.retrieve(features, bank, texts, threshold=0.0)
    found = dict(reloaded.retrieve(features, bank, texts, threshold=0.4))
    assert {f"phrase {i}" for i in examples[0].phrase_ids} & set(found)
    assert all(score >= 0.4 for score in found.values())


def test_a_bad_checkpoint_is_not_silently_accepted(tmp_path):
    path = tmp_path / "bad.pt"
    path.write_bytes(b"not a checkpoint")
    with pytest.raises(pickle.UnpicklingError):
        load_checkpoint(path)
