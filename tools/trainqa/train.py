#!/usr/bin/env python3
"""Train the demo question-answering model: a small BERT for question
answering in plain PyTorch (Debian's python3-torch 1.13; no transformers).

Input: windows files written by `go run ./tools/trainqa` (the windows
qa-shard itself cuts, framed by the tokenizer's pair template, labelled with
the answer's tokens or the cls token), and the layout JSON beside each: the
tokenizer's special ids and vocabulary size, and whether the model takes
token_type_ids (without, as RoBERTa exports, it trains one type row).
Output: model.safetensors, a BertForQuestionAnswering state dict under
Hugging Face's parameter names and layouts (float16), and parity.safetensors,
a few padded windows with the logits this model gives them in float32, so
that `go test ./testmodel` checks the ONNX graph built from the weights
against PyTorch without needing PyTorch.

The recipe is phases of (windows files, steps, token budget per batch,
share of answer-less windows kept), a fixed seed, AdamW with warmup and
linear decay, cross-entropy over the positions HF's decoding allows (the
context and the cls token, which labels windows without the answer). Only
the rows of the token ids the windows use are trained (unseen ids get the
unknown token's row).
Position embeddings are sinusoids, frozen, so that the positions short
windows never reach behave; their amplitude decides whether the model
learns to read a word's neighbours at all (see --pos-scale). The make
target (mk/train.mk) trains on 128-token windows first, which are cheap,
then on qa-shard's 384-token windows mixed with 512-token ones, so that the
truncating baseline, which feeds 512 tokens, gets a model that knows them.
"""
import argparse
import os
import sys
import time

# Threads: set before numpy and torch start their pools. On a shared
# machine one thread is several times faster than two (a descheduled
# OpenMP thread stalls every barrier).
_THREADS = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--threads=")), "1")
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, _THREADS)

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:
    sys.exit(f"train.py: {e}: it needs PyTorch and NumPy, e.g. Debian's python3-torch "
             "(apt-get install python3-torch libopenblas0-pthread), run by that python "
             "(make train PYTHON=/usr/bin/python3)")

from qamodel import MASKED, BertQA  # noqa: E402  (after the thread settings)
from windows import Vocab, common_layout, load_phases, batches, tensors  # noqa: E402
from export import round_fp16, window_accuracy, write_safetensors, parity_set  # noqa: E402


def loss_fn(model, batch):
    ids, types, mask, allowed, start, end = batch
    s, e = model(ids, types, mask)
    # The softmax HF's decoding takes: over the context and [CLS] only.
    s = s.masked_fill(~allowed, MASKED)
    e = e.masked_fill(~allowed, MASKED)
    return (F.cross_entropy(s, start) + F.cross_entropy(e, end)) / 2


def train(model, plan, fr, lr, rng, log_every):
    total = sum(p[2] for p in plan)
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.dim() > 1]
    no_decay = [p for p in params if p.dim() <= 1]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": no_decay, "weight_decay": 0.0}], lr=lr)
    warm = max(1, total // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / (total - warm))))
    step, t0, c0, run = 0, time.time(), time.process_time(), 0.0
    for path, ws, steps, budget in plan:
        queue = []
        for _ in range(steps):
            if not queue:
                queue = batches(ws, budget, rng)
            loss = loss_fn(model, tensors(ws, queue.pop(), fr))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            step += 1
            run = loss.item() if step == 1 else 0.98 * run + 0.02 * loss.item()
            if step % log_every == 0 or step == total:
                print(f"step {step}/{total} loss {run:.4f} lr {sched.get_last_lr()[0]:.2e} "
                      f"{time.time() - t0:.0f}s (cpu {time.process_time() - c0:.0f}s)", flush=True)
    return time.time() - t0, time.process_time() - c0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phase", action="append", required=True,
                    help="WINDOWS:STEPS:TOKENS[:NEG], trained in order; NEG keeps that share of windows without the answer")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--intermediate", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--threads", type=int, default=1, help="intra-op threads (give it as --threads=N)")
    ap.add_argument("--parity-windows", required=True, help="windows file the parity set is taken from")
    ap.add_argument("--out", required=True, help="directory for model.safetensors and parity.safetensors")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--pos-scale", type=float, default=0.3,
                    help="amplitude of the sinusoidal position embeddings (0: BERT's random init); "
                         "0.05 never learns which city a sentence's context asks for, 1.0 learns slowly")
    ap.add_argument("--pos-train", action="store_true", help="train the position embeddings (frozen by default)")
    ap.add_argument("--heldout", help="windows file for the per-question accuracy (default: --parity-windows)")
    a = ap.parse_args()

    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    rng = np.random.RandomState(a.seed)
    phases = []
    for spec in a.phase:
        parts = spec.split(":")
        neg = float(parts[3]) if len(parts) > 3 else 1.0
        phases.append((parts[0], int(parts[1]), int(parts[2]), neg))
    files = [p for spec, _, _, _ in phases for p in spec.split("+")] + [a.parity_windows] + ([a.heldout] if a.heldout else [])
    lay = common_layout(files)
    plan = load_phases(phases, rng)
    vocab = Vocab((ws for _, ws, _, _ in plan), lay)
    plan = [(path, vocab.remap(ws), steps, budget) for path, ws, steps, budget in plan]
    fr = vocab.frame()
    print(f"{len(vocab.ids)} distinct token ids in training (vocabulary {lay['vocab_size']}, "
          f"{'with' if lay['token_types'] else 'without'} token types)", flush=True)
    # Without token_type_ids (RoBERTa-like exports) the model has one type
    # row, added everywhere, as the ONNX graph without that input does.
    model = BertQA(len(vocab.ids), a.hidden, a.layers, a.heads, a.intermediate, types=2 if lay["token_types"] else 1,
                   pos_scale=a.pos_scale, pos_train=a.pos_train, pad=fr.pad)
    model.train()
    secs, cpu = train(model, plan, fr, a.lr, rng, a.log_every)
    print(f"trained in {secs:.0f}s wall, {cpu:.0f}s CPU, {a.threads} thread(s); load average {os.getloadavg()[0]:.1f}", flush=True)
    full = torch.nn.Embedding(lay["vocab_size"], a.hidden)
    with torch.no_grad():
        full.weight.copy_(vocab.expand(model.words.weight))
    model.words = full

    round_fp16(model)
    print("held-out windows right:", window_accuracy(model, a.heldout or a.parity_windows), flush=True)
    meta = {"format": "pt", "architecture": "BertForQuestionAnswering", "num_attention_heads": a.heads,
            "layer_norm_eps": 1e-12, "hidden_act": "gelu", "seed": a.seed,
            "recipe": " ".join(sys.argv[1:])}  # no timings: the same recipe writes the same bytes
    if lay["family"] != "bert":
        meta["family"] = lay["family"]
    sd = {k: v.half() for k, v in model.state_dict_hf().items()}
    write_safetensors(f"{a.out}/model.safetensors", sd, meta)
    write_safetensors(f"{a.out}/parity.safetensors", parity_set(model, a.parity_windows, 6), {"format": "pt"})
    print(f"wrote {a.out}/model.safetensors and {a.out}/parity.safetensors")


if __name__ == "__main__":
    main()
