"""Random-init *ForQuestionAnswering models made by transformers' own
classes, and their start/end logits on fixed inputs, for qa-shard's graph
builder to be compared with (make test-reference).

usage: python logits.py OUT_DIR [FAMILY ...]

For every family (and DeBERTa configuration) it writes OUT_DIR/<name>/
with config.json, the weights as save_pretrained writes them
(safetensors/ and bin/ subfolders: model.safetensors, pytorch_model.bin),
and logits.json: the inputs (input_ids, attention_mask, token_type_ids,
with padding) and torch's start_logits and end_logits for them.
"""
import json
import os
import sys

import torch
import transformers
from transformers import AutoModelForQuestionAnswering

VOCAB = 96
COMMON = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
              intermediate_size=48, max_position_embeddings=64, initializer_range=0.4,
              hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)

# name: (config class, extra settings); every model_type qagraph builds,
# DeBERTa in the configurations released QA checkpoints use.
FAMILIES = {
    "bert": ("BertConfig", {}),
    "bert-gelu-new": ("BertConfig", dict(hidden_act="gelu_new")),
    # weights saved in float16 and bfloat16: transformers loads them into
    # float32 (its default dtype), as qa-shard's graph takes them
    "bert-f16": ("BertConfig", dict(_save_dtype="float16")),
    "bert-bf16": ("BertConfig", dict(_save_dtype="bfloat16")),
    "electra": ("ElectraConfig", dict(embedding_size=16)),
    "roberta": ("RobertaConfig", dict(pad_token_id=1, type_vocab_size=1, layer_norm_eps=1e-5, max_position_embeddings=66)),
    "xlm-roberta": ("XLMRobertaConfig", dict(pad_token_id=1, type_vocab_size=1, layer_norm_eps=1e-5, max_position_embeddings=66)),
    "camembert": ("CamembertConfig", dict(pad_token_id=1, type_vocab_size=1, layer_norm_eps=1e-5, max_position_embeddings=66)),
    "albert": ("AlbertConfig", dict(embedding_size=16, num_hidden_layers=3, num_hidden_groups=1, inner_group_num=1)),
    "albert-groups": ("AlbertConfig", dict(embedding_size=16, num_hidden_layers=4, num_hidden_groups=2, inner_group_num=2)),
    "distilbert": ("DistilBertConfig", dict(dim=32, n_layers=2, n_heads=4, hidden_dim=48, dropout=0.0, attention_dropout=0.0)),
    # deberta-v3-base's layout: buckets, shared keys, c2p and p2c, layer norm of the relative embeddings
    "deberta-v3": ("DebertaV2Config", dict(relative_attention=True, position_buckets=16, max_relative_positions=-1,
                                           pos_att_type=["p2c", "c2p"], share_att_key=True, norm_rel_ebd="layer_norm",
                                           position_biased_input=False, type_vocab_size=0, layer_norm_eps=1e-7)),
    # deberta-v2-xlarge without its conv layer: no buckets, own position projections
    "deberta-v2": ("DebertaV2Config", dict(relative_attention=True, position_buckets=-1, max_relative_positions=-1,
                                           pos_att_type="p2c|c2p", share_att_key=False, norm_rel_ebd="none",
                                           position_biased_input=False, type_vocab_size=0, layer_norm_eps=1e-7)),
    # c2p alone, absolute positions too, token types, a narrower embedding
    "deberta-c2p": ("DebertaV2Config", dict(relative_attention=True, position_buckets=8, max_relative_positions=32,
                                            pos_att_type=["c2p"], share_att_key=True, norm_rel_ebd="layer_norm",
                                            position_biased_input=True, type_vocab_size=2, embedding_size=24,
                                            layer_norm_eps=1e-7)),
}


def inputs(name, cfg):
    """Three rows of 24 tokens, the last padded from token 15."""
    g = torch.Generator().manual_seed(5)
    ids = torch.randint(3, VOCAB, (3, 24), generator=g)
    mask = torch.ones_like(ids)
    mask[2, 15:] = 0
    pad = getattr(cfg, "pad_token_id", 0) or 0
    ids[2, 15:] = pad
    types = torch.zeros_like(ids)
    types[:, 10:] = 1
    types[2, 15:] = 0
    feed = dict(input_ids=ids, attention_mask=mask)
    if name.startswith(("bert", "electra", "albert")) or (name.startswith("deberta") and cfg.type_vocab_size > 0):
        feed["token_type_ids"] = types
    return feed


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or list(FAMILIES)
    for name in names:
        cls, extra = FAMILIES[name]
        settings = dict(COMMON, **extra)
        save_dtype = settings.pop("_save_dtype", None)
        cfg = getattr(transformers, cls)(**settings)
        cfg.architectures = [{"BertConfig": "BertForQuestionAnswering", "ElectraConfig": "ElectraForQuestionAnswering",
                              "RobertaConfig": "RobertaForQuestionAnswering", "XLMRobertaConfig": "XLMRobertaForQuestionAnswering",
                              "CamembertConfig": "CamembertForQuestionAnswering", "AlbertConfig": "AlbertForQuestionAnswering",
                              "DistilBertConfig": "DistilBertForQuestionAnswering",
                              "DebertaV2Config": "DebertaV2ForQuestionAnswering"}[cls]]
        torch.manual_seed(sum(map(ord, name)))
        model = AutoModelForQuestionAnswering.from_config(cfg).eval()
        d = os.path.join(out, name)
        if save_dtype:
            model = model.to(getattr(torch, save_dtype))
        model.save_pretrained(os.path.join(d, "safetensors"), safe_serialization=True)
        model.save_pretrained(os.path.join(d, "bin"), safe_serialization=False)
        if save_dtype:  # as a user loads it: widened to float32
            model = AutoModelForQuestionAnswering.from_pretrained(os.path.join(d, "safetensors"), torch_dtype=torch.float32).eval()
        feed = inputs(name, cfg)
        with torch.no_grad():
            o = model(**feed)
        json.dump({"inputs": {k: v.tolist() for k, v in feed.items()},
                   "start_logits": o.start_logits.tolist(), "end_logits": o.end_logits.tolist(),
                   "transformers": transformers.__version__, "torch": torch.__version__},
                  open(os.path.join(d, "logits.json"), "w"))
        print(name, "ok")


if __name__ == "__main__":
    main()
