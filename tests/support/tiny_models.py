"""Tiny models with random weights, built and saved the way real model folders are laid out.

Each builder writes a folder that the production loading code opens exactly as it would open a
downloaded model: nothing here is a mock.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

#: Device the tiny-model tests run on: cpu in CI; on a GPU machine run the same tests with
#: RADREVIEW_TEST_DEVICE=cuda.
DEVICE = os.environ.get("RADREVIEW_TEST_DEVICE", "cpu")

SPECIAL_TOKENS = ["<pad>", "<unk>", "<s>", "</s>", "<|system|>", "<|user|>", "<|assistant|>",
                  "<|end|>", "<image>"]
CORPUS = [
    "there is a small left pleural effusion .",
    "no pneumothorax . no focal consolidation .",
    "the heart size is normal . the mediastinum is unremarkable .",
    "lungs are clear . mild right basilar atelectasis .",
    "support devices : endotracheal tube and central line in place .",
    "findings : impression : view : pa lateral image 1 2 3",
    "reply with json { } [ ] \" : , true false ok",
]
# Renders string content and content-part lists ({"type": "image"} / {"type": "text"}).
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|> "
    "{% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for p in m['content'] %}"
    "{% if p['type'] == 'image' %}<image> {% elif p['type'] == 'text' %}{{ p['text'] }} {% endif %}"
    "{% endfor %}{% endif %} <|end|> {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|> {% endif %}"
)
# Like the templates of models that accept no system turn.
NO_SYSTEM_TEMPLATE = (
    "{% for m in messages %}{% if m['role'] == 'system' %}"
    "{{ raise_exception('System role not supported') }}{% endif %}"
    "<|{{ m['role'] }}|> {{ m['content'] }} <|end|> {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|> {% endif %}"
)


def build_tokenizer(chat_template: str = CHAT_TEMPLATE):
    """A word-level fast tokenizer trained offline on a few report sentences."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.WordLevel(unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.decoder = decoders.WordPiece(prefix="##")  # joins words with spaces
    backend.train_from_iterator(CORPUS, trainers.WordLevelTrainer(special_tokens=SPECIAL_TOKENS))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>",
                                        eos_token="</s>", bos_token="<s>", unk_token="<unk>")
    tokenizer.chat_template = chat_template
    return tokenizer


def _llama_config(tokenizer, **overrides):
    from transformers import LlamaConfig

    settings = dict(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                    num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                    max_position_embeddings=512, pad_token_id=tokenizer.pad_token_id,
                    eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.bos_token_id,
                    # Peaked logits: greedy choices are far from ties, so batched and single
                    # runs pick the same tokens despite float rounding.
                    initializer_range=0.5)
    settings.update(overrides)
    return LlamaConfig(**settings)


def build_llm(folder: Path, *, chat_template: str = CHAT_TEMPLATE, seed: int = 0) -> Path:
    """A two-layer LLaMA-style causal LM with its tokenizer and chat template."""
    import torch
    from transformers import LlamaForCausalLM

    tokenizer = build_tokenizer(chat_template)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(_llama_config(tokenizer))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def build_vlm(folder: Path, *, seed: int = 0) -> Path:
    """A tiny LLaVA: a two-layer CLIP vision tower (32 px, 8 px patches) + the tiny LLaMA,
    with a LlavaProcessor (CLIP image processor + tokenizer + chat template)."""
    import torch
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    tokenizer = build_tokenizer()
    image_processor = CLIPImageProcessor(size={"shortest_edge": 32},
                                         crop_size={"height": 32, "width": 32},
                                         image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5])
    processor = LlavaProcessor(image_processor=image_processor, tokenizer=tokenizer,
                               patch_size=8, vision_feature_select_strategy="default",
                               num_additional_image_tokens=1, chat_template=CHAT_TEMPLATE)
    vision = CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                              num_attention_heads=2, image_size=32, patch_size=8,
                              projection_dim=16)
    config = LlavaConfig(vision_config=vision, text_config=_llama_config(tokenizer),
                         image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
                         image_seq_length=16, vision_feature_layer=-1,
                         vision_feature_select_strategy="default")
    torch.manual_seed(seed)
    LlavaForConditionalGeneration(config).save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


# BiomedCLIP's text tower config, as on the hub: building it would need the hub, so the
# backend must never build it.
BIOMEDCLIP_TEXT_CFG = {
    "hf_model_name": "microsoft/BiomedNLP-BiomedBERT-base-uncased-abstract",
    "hf_tokenizer_name": "microsoft/BiomedNLP-BiomedBERT-base-uncased-abstract",
    "hf_proj_type": "mlp",
    "hf_pooler_type": "cls_last_hidden_state_pooler",
    "context_length": 256,
}
BIOMEDCLIP_PREPROCESS = {"mean": [0.48145466, 0.4578275, 0.40821073],
                         "std": [0.26862954, 0.26130258, 0.27577711]}


def build_biomedclip_like(folder: Path, *, seed: int = 0, embed_dim: int = 512) -> Path:
    """BiomedCLIP's layout and tower type (a timm ViT with 16 px patches, no pooling layer,
    linear projection to 512-d) with timm's tiny test ViT (160 px input) in place of
    vit_base_patch16_224; hub-style open_clip_config.json and open_clip_pytorch_model.bin
    holding visual.* and text.* weights."""
    import torch
    from open_clip.model import _build_vision_tower

    vision_cfg = {"timm_model_name": "test_vit", "timm_model_pretrained": False,
                  "timm_pool": "", "timm_proj": "linear", "image_size": 160}
    torch.manual_seed(seed)
    tower = _build_vision_tower(embed_dim, vision_cfg)
    state = {f"visual.{key}": value for key, value in tower.state_dict().items()}
    state["text.proj.0.weight"] = torch.zeros(8, 8)  # the checkpoint also carries a text tower
    state["logit_scale"] = torch.tensor(4.6)
    folder.mkdir(parents=True, exist_ok=True)
    torch.save(state, folder / "open_clip_pytorch_model.bin")
    config = {"model_cfg": {"embed_dim": embed_dim, "vision_cfg": vision_cfg,
                            "text_cfg": BIOMEDCLIP_TEXT_CFG},
              "preprocess_cfg": BIOMEDCLIP_PREPROCESS}
    (folder / "open_clip_config.json").write_text(json.dumps(config, indent=2))
    return folder


def build_native_clip(folder: Path, *, seed: int = 0, width: int = 64) -> Path:
    """A whole tiny open_clip CLIP (native ViT image tower and text tower), saved as
    open_clip_model.safetensors, 512-d embeddings."""
    import torch
    from open_clip.model import CLIP
    from safetensors.torch import save_file

    model_cfg = {"embed_dim": 512,
                 "vision_cfg": {"image_size": 32, "patch_size": 16, "width": width, "layers": 2,
                                "head_width": 32},
                 "text_cfg": {"context_length": 8, "vocab_size": 64, "width": 32, "heads": 2,
                              "layers": 1}}
    torch.manual_seed(seed)
    model = CLIP(**model_cfg)
    folder.mkdir(parents=True, exist_ok=True)
    save_file({key: value.contiguous() for key, value in model.state_dict().items()},
              str(folder / "open_clip_model.safetensors"))
    config = {"model_cfg": model_cfg, "preprocess_cfg": BIOMEDCLIP_PREPROCESS}
    (folder / "open_clip_config.json").write_text(json.dumps(config, indent=2))
    return folder


RADGRAPH_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "1", "2", "there",
                  "is", "small", "left", "right", "pleural", "effusion", "no", "pneumothorax",
                  ".", "heart", "size", "normal", "lungs", "are", "clear"]


def build_radgraph_folder(folder: Path, model_type: str = "radgraph-xl",
                          *, with_weights: bool = True) -> Path:
    """radgraph's model folder layout (<folder>/<model_type>/config.json, vocabulary/,
    weights.th) with a tiny BERT encoder in <folder>/encoder that config.json points to."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    encoder = folder / "encoder"
    encoder.mkdir(parents=True, exist_ok=True)
    BertTokenizerFast(vocab={word: i for i, word in enumerate(RADGRAPH_VOCAB)},
                      do_lower_case=True).save_pretrained(encoder)
    BertModel(BertConfig(vocab_size=len(RADGRAPH_VOCAB), hidden_size=16, num_hidden_layers=1,
                         num_attention_heads=2, intermediate_size=32,
                         max_position_embeddings=64)).save_pretrained(encoder)
    model_dir = folder / model_type
    (model_dir / "vocabulary").mkdir(parents=True, exist_ok=True)
    bert = {"type": "pretrained_transformer_mismatched", "model_name": str(encoder),
            "max_length": 64}
    config = {
        "dataset_reader": {"type": "dygie", "max_span_width": 4, "token_indexers": {"bert": bert}},
        "model": {
            "type": "dygie", "embedder": {"token_embedders": {"bert": bert}},
            "initializer": {}, "module_initializer": {},
            "loss_weights": {"ner": 1.0, "relation": 1.0, "coref": 0.0, "events": 0.0},
            "feature_size": 4, "max_span_width": 4, "target_task": "relation",
            "feedforward_params": {"num_layers": 1, "hidden_dims": 8, "dropout": 0.0},
            "modules": {
                "coref": {"spans_per_word": 0.3, "max_antecedents": 10, "coref_prop": 0},
                "ner": {}, "relation": {"spans_per_word": 0.5},
                "events": {"trigger_spans_per_word": 0.3, "argument_spans_per_word": 0.8,
                           "loss_weights": {"trigger": 0.2, "arguments": 1.0}}}},
    }
    (model_dir / "config.json").write_text(json.dumps(config, indent=2))
    vocabulary = model_dir / "vocabulary"
    (vocabulary / "non_padded_namespaces.txt").write_text("*tags\n*labels\n")
    (vocabulary / f"{model_type}__ner_labels.txt").write_text(
        "\n".join(["", "ANAT-DP", "OBS-DP", "OBS-U", "OBS-DA"]) + "\n")
    (vocabulary / f"{model_type}__relation_labels.txt").write_text(
        "\n".join(["", "modify", "located_at", "suggestive_of"]) + "\n")
    if with_weights:
        (model_dir / "weights.th").write_bytes(b"")
    return folder


def write_radgraph_weights(folder: Path, model_type: str = "radgraph-xl") -> None:
    """Random DyGIE weights for the folder's config, built the way RadGraph() builds its model
    (needs a transformers that radgraph can run with)."""
    import torch
    from dotmap import DotMap
    from radgraph.allennlp.data import Vocabulary
    from radgraph.allennlp.modules import text_field_embedders, token_embedders
    from radgraph.dygie.models import dygie

    model_dir = folder / model_type
    config = DotMap(json.loads((model_dir / "config.json").read_text()))
    vocab = Vocabulary.from_files(str(model_dir / "vocabulary"))
    bert = config.model.embedder.token_embedders.bert
    embedder = text_field_embedders.BasicTextFieldEmbedder({"bert": (
        token_embedders.PretrainedTransformerMismatchedEmbedder(model_name=bert.model_name,
                                                                max_length=bert.max_length))})
    model_args = config.model
    for name in ["type", "embedder", "initializer", "module_initializer"]:
        del model_args[name]
    torch.manual_seed(0)
    model = dygie.DyGIE(vocab=vocab, embedder=embedder, **model_args)
    torch.save(model.state_dict(), model_dir / "weights.th")


def build_sentence_transformer(folder: Path, *, seed: int = 0) -> Path:
    """A sentence-transformers folder (BERT word pieces, mean pooling, normalised) as
    all-MiniLM-L6-v2 is laid out, with a fast tokenizer (tokenizer.json) and random weights."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    bert = folder.parent / f"{folder.name}-bert"
    bert.mkdir(parents=True, exist_ok=True)
    vocab = [*RADGRAPH_VOCAB, "##s", "##al", "heart", "mild", "cardiomegaly"]
    BertTokenizerFast(vocab={word: i for i, word in enumerate(dict.fromkeys(vocab))},
                      do_lower_case=True).save_pretrained(bert)
    torch.manual_seed(seed)
    BertModel(BertConfig(vocab_size=len(dict.fromkeys(vocab)), hidden_size=16,
                         num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                         max_position_embeddings=64)).save_pretrained(bert)
    transformer = Transformer(str(bert))
    pooling = Pooling(transformer.get_embedding_dimension(), "mean")
    SentenceTransformer(modules=[transformer, pooling, Normalize()],
                        device="cpu").save(str(folder))
    return folder
