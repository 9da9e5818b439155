"""RA-RRG's trained key-phrase retriever (Park et al.), as a torch module.

Architecture:

* **fused vision features**: the features of one or more frozen image encoders (here: the
  image memory's encoder and, when it is a learned one, the built-in appearance descriptor),
  each a vector or a token sequence, are layer-normed and projected to ``d_model``, tagged
  with a learned source embedding and concatenated into one memory sequence;
* **DETR-style decoder**: ``queries`` learned query embeddings attend to that memory through
  a ``nn.TransformerDecoder``;
* two heads per query: a **selection head** (logit: does this query name a key phrase of the
  image?) and a **semantic head** (a unit vector in the text embedder's space: which phrase).

Training loss, per image: the queries are matched one-to-one to the image's key phrases with
the Hungarian algorithm (``scipy.optimize.linear_sum_assignment``) on a cost of minus the
cosine between a query's semantic vector and the phrase embedding, minus its selection
probability; matched queries learn selection 1 and their phrase's embedding (1 − cosine),
unmatched queries learn selection 0 (binary cross-entropy). An **in-batch contrastive** loss
(InfoNCE) pulls each matched semantic vector towards its own phrase and away from the other
phrases of the batch (a phrase shared by several images is a positive for each of them).
**Embedding noise**: during training the target phrase embeddings get Gaussian noise
(``noise`` × a unit-variance vector, then re-normalised), so the semantic head learns a region
around each phrase rather than a point, as the paper does to make retrieval robust.

At inference a query whose selection probability passes the threshold (0.4) retrieves the
phrase of the bank nearest its semantic vector; the phrase's score is that probability.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from workers.atomic import replacing


@dataclass
class RetrieverConfig:
    feature_dims: tuple[int, ...]
    text_dim: int
    d_model: int = 256
    queries: int = 16
    layers: int = 2
    heads: int = 4
    dropout: float = 0.1
    noise: float = 0.05
    contrastive_temperature: float = 0.07
    cost_semantic: float = 1.0
    cost_select: float = 1.0
    weight_select: float = 1.0
    weight_semantic: float = 1.0
    weight_contrastive: float = 0.5
    phrases: list[str] = field(default_factory=list)  # the bank it was trained on

    def to_dict(self) -> dict:
        data = asdict(self)
        data["feature_dims"] = list(self.feature_dims)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> RetrieverConfig:
        data = dict(data)
        data["feature_dims"] = tuple(data["feature_dims"])
        return cls(**data)


def _torch():
    import torch  # noqa: PLC0415 - defer torch
    return torch


def build_model(config: RetrieverConfig):
    torch = _torch()
    nn = torch.nn

    class PhraseRetriever(nn.Module):
        def __init__(self, config: RetrieverConfig):
            super().__init__()
            self.config = config
            d = config.d_model
            self.projections = nn.ModuleList(
                nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, d)) for dim in config.feature_dims)
            self.source_embedding = nn.Embedding(len(config.feature_dims), d)
            self.query_embedding = nn.Embedding(config.queries, d)
            layer = nn.TransformerDecoderLayer(d, config.heads, 4 * d, config.dropout,
                                               batch_first=True, norm_first=True)
            self.decoder = nn.TransformerDecoder(layer, config.layers, norm=nn.LayerNorm(d))
            self.select_head = nn.Linear(d, 1)
            self.semantic_head = nn.Sequential(nn.Linear(d, d), nn.GELU(),
                                               nn.Linear(d, config.text_dim))

        def fuse(self, features):
            tokens = []
            for source, (projection, x) in enumerate(zip(self.projections, features)):
                if x.dim() == 2:
                    x = x[:, None, :]
                tokens.append(projection(x) + self.source_embedding.weight[source])
            return torch.cat(tokens, dim=1)

        def forward(self, features):
            memory = self.fuse(features)
            batch = memory.shape[0]
            queries = self.query_embedding.weight[None].expand(batch, -1, -1)
            hidden = self.decoder(queries, memory)
            select = self.select_head(hidden).squeeze(-1)
            semantic = torch.nn.functional.normalize(self.semantic_head(hidden), dim=-1)
            return select, semantic

        @torch.no_grad()
        def retrieve(self, features, bank_vectors, bank_texts, threshold: float = 0.4):
            """[(phrase, score)] for one image (features: one array per source, batch 1)."""
            self.eval()
            tensors = [torch.as_tensor(np.asarray(f, dtype=np.float32)) for f in features]
            tensors = [t if t.dim() > 1 else t[None] for t in tensors]
            select, semantic = self(tensors)
            probability = torch.sigmoid(select[0])
            bank = torch.nn.functional.normalize(torch.as_tensor(
                np.asarray(bank_vectors, dtype=np.float32)), dim=-1)
            if bank.shape[0] == 0:
                return []
            nearest = (semantic[0] @ bank.T).argmax(dim=-1)
            found: dict[str, float] = {}
            for q in range(select.shape[1]):
                p = float(probability[q])
                if p >= threshold:
                    text = bank_texts[int(nearest[q])]
                    found[text] = max(found.get(text, 0.0), p)
            return sorted(found.items(), key=lambda item: -item[1])

    return PhraseRetriever(config)


def matching(select_logits, semantic, targets, config: RetrieverConfig):
    """Hungarian matching of queries to target vectors, per image: [(rows, cols)]."""
    from scipy.optimize import linear_sum_assignment  # noqa: PLC0415 - defer scipy

    torch = _torch()
    out = []
    with torch.no_grad():
        probability = torch.sigmoid(select_logits)
        for b, target in enumerate(targets):
            if target.shape[0] == 0:
                out.append((np.zeros(0, int), np.zeros(0, int)))
                continue
            cost = (-config.cost_semantic * (semantic[b] @ target.T)
                    - config.cost_select * probability[b][:, None])
            rows, cols = linear_sum_assignment(cost.cpu().numpy())
            out.append((rows, cols))
    return out


def retriever_loss(model, features, target_ids, bank, *, training: bool = True,
                   generator=None) -> tuple:
    """(total loss, parts dict) for a batch. ``target_ids``: one LongTensor of phrase
    indices into ``bank`` (P × text_dim, unit rows) per image."""
    torch = _torch()
    F = torch.nn.functional
    config = model.config
    select, semantic = model(features)
    targets = []
    for ids in target_ids:
        vectors = bank[ids]
        if training and config.noise > 0:
            noise = torch.randn(vectors.shape, generator=generator) * config.noise
            vectors = F.normalize(vectors + noise, dim=-1)
        targets.append(vectors)
    matches = matching(select, semantic, targets, config)
    select_target = torch.zeros_like(select)
    semantic_losses, matched_vectors, matched_ids = [], [], []
    for b, (rows, cols) in enumerate(matches):
        if len(rows) == 0:
            continue
        rows_t = torch.as_tensor(rows, dtype=torch.long)
        cols_t = torch.as_tensor(cols, dtype=torch.long)
        select_target[b, rows_t] = 1.0
        chosen = semantic[b, rows_t]
        semantic_losses.append(1.0 - (chosen * targets[b][cols_t]).sum(-1))
        matched_vectors.append(chosen)
        matched_ids.append(target_ids[b][cols_t])
    loss_select = F.binary_cross_entropy_with_logits(select, select_target)
    if semantic_losses:
        loss_semantic = torch.cat(semantic_losses).mean()
        queries = torch.cat(matched_vectors)
        ids = torch.cat(matched_ids)
        unique, inverse = torch.unique(ids, return_inverse=True)
        logits = queries @ bank[unique].T / config.contrastive_temperature
        positive = F.one_hot(inverse, num_classes=len(unique)).bool()
        loss_contrastive = (torch.logsumexp(logits, dim=-1)
                            - torch.logsumexp(logits.masked_fill(~positive, -math.inf),
                                              dim=-1)).mean()
    else:
        loss_semantic = loss_contrastive = select.sum() * 0.0
    total = (config.weight_select * loss_select + config.weight_semantic * loss_semantic
             + config.weight_contrastive * loss_contrastive)
    return total, {"select": loss_select.item(), "semantic": loss_semantic.item(),
                   "contrastive": loss_contrastive.item(), "total": total.item()}


@dataclass
class TrainingExample:
    features: list[np.ndarray]   # one vector (or token array) per source
    phrase_ids: list[int]


def train(model, examples: list[TrainingExample], bank_vectors: np.ndarray, *, epochs: int = 10,
          batch_size: int = 16, lr: float = 3e-4, seed: int = 0, progress=None) -> list[float]:
    """Adam on ``retriever_loss``; returns the loss of every step."""
    torch = _torch()
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    bank = torch.nn.functional.normalize(torch.as_tensor(np.asarray(bank_vectors, np.float32)),
                                         dim=-1)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    losses: list[float] = []
    steps = epochs * max(1, math.ceil(len(examples) / batch_size))
    model.train()
    for _epoch in range(epochs):
        order = rng.permutation(len(examples))
        for start in range(0, len(order), batch_size):
            batch = [examples[i] for i in order[start:start + batch_size]]
            sources = len(batch[0].features)
            features = [torch.as_tensor(np.stack([np.asarray(e.features[s], np.float32)
                                                  for e in batch])) for s in range(sources)]
            ids = [torch.as_tensor(e.phrase_ids, dtype=torch.long) for e in batch]
            loss, _ = retriever_loss(model, features, ids, bank, generator=generator)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            losses.append(loss.item())
            if progress is not None:
                progress(len(losses) / steps, f"step {len(losses)} of {steps}, "
                                              f"loss {losses[-1]:.3f}")
    model.eval()
    return losses


def save_checkpoint(model, path) -> None:
    """Config and weights, written through a temporary file."""
    torch = _torch()
    with replacing(path) as partial:
        torch.save({"config": model.config.to_dict(), "state_dict": model.state_dict()}, partial)


def load_checkpoint(path):
    torch = _torch()
    data = torch.load(str(path), map_location="cpu", weights_only=True)
    model = build_model(RetrieverConfig.from_dict(data["config"]))
    model.load_state_dict(data["state_dict"])
    model.eval()
    return model


def memory_examples(memory, extra_features: dict[int, list[np.ndarray]] | None = None
                    ) -> list[TrainingExample]:
    """One example per image of the image memory: its stored vector (plus any extra sources,
    by image id) and the phrase-bank indices of its study's key phrases."""
    ids = sorted(memory.images)
    if not ids:
        return []
    vectors = memory.vectors(ids)
    examples = []
    for image_id, vector in zip(ids, vectors):
        study = memory.studies[memory.images[image_id].study_id]
        phrase_ids = [i for i in (memory.phrase_id(p) for p in study.phrases) if i is not None]
        features = [vector] + list((extra_features or {}).get(image_id, []))
        examples.append(TrainingExample(features, phrase_ids))
    return examples


def train_on_memory(memory, *, extra_features=None, epochs: int = 30, batch_size: int = 32,
                    lr: float = 3e-4, seed: int = 0, progress=None, **config_options):
    """A retriever trained on the whole image memory; returns (model, losses)."""
    if memory.is_empty or not memory.phrases:
        raise ValueError("the image memory has no images or no key phrases to train on")
    examples = memory_examples(memory, extra_features)
    dims = tuple(int(np.asarray(f).shape[-1]) for f in examples[0].features)
    config = RetrieverConfig(feature_dims=dims, text_dim=int(memory.phrase_vectors.shape[1]),
                             phrases=list(memory.phrases), **config_options)
    _torch().manual_seed(seed)
    model = build_model(config)
    losses = train(model, examples, memory.phrase_vectors, epochs=epochs,
                   batch_size=batch_size, lr=lr, seed=seed, progress=progress)
    return model, losses
