#!/usr/bin/env python3
"""Train the demo question-answering model: a small BERT for question
answering in plain PyTorch (Debian's python3-torch 1.13; no transformers).

Input: windows files written by `go run ./tools/trainqa` (the windows
qa-shard itself cuts, labelled with the answer's tokens or [CLS]).
Output: model.safetensors, a BertForQuestionAnswering state dict under
Hugging Face's parameter names and layouts (float16), and parity.safetensors,
a few padded windows with the logits this model gives them in float32, so
that `go test ./testmodel` checks the ONNX graph built from the weights
against PyTorch without needing PyTorch.

The recipe is phases of (windows files, steps, token budget per batch,
share of answer-less windows kept), a fixed seed, AdamW with warmup and
linear decay, cross-entropy over the positions HF's decoding allows (the
context and [CLS], which labels windows without the answer). Only the rows
of the token ids the windows use are trained (unseen ids get [UNK]'s row).
Position embeddings are sinusoids, frozen, so that the positions short
windows never reach behave; their amplitude decides whether the model
learns to read a word's neighbours at all (see --pos-scale). The make
target (mk/train.mk) trains on 128-token windows first, which are cheap,
then on qa-shard's 384-token windows mixed with 512-token ones, so that the
truncating baseline, which feeds 512 tokens, gets a model that knows them.
"""
import argparse
import json
import math
import os
import struct
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

MASKED = -10000.0  # what BERT adds for padding, and HF's decoding for masked logits


def read_windows(path):
    raw = np.fromfile(path, dtype="<i4")
    out, i = [], 0
    while i < len(raw):
        n, qlen, s, e = raw[i : i + 4]
        out.append((raw[i + 4 : i + 4 + n].copy(), int(qlen), int(s), int(e)))
        i += 4 + n
    return out


UNK = 100


class Vocab:
    """The token ids the training windows use, numbered densely: the model
    trains a table of only those rows (the rest of the 30,522 would get no
    gradient anyway, and updating them costs more than the transformer).
    At export every unseen id gets the [UNK] row: the model treats a word it
    never saw as an unknown word."""

    def __init__(self, window_sets):
        used = {0, UNK, 101, 102}
        for ws in window_sets:
            for w in ws:
                used.update(np.unique(w[0]).tolist())
        self.ids = np.array(sorted(used), dtype=np.int64)
        self.dense = np.zeros(30522, dtype=np.int32)
        self.dense[:] = np.searchsorted(self.ids, UNK)
        self.dense[self.ids] = np.arange(len(self.ids))

    def remap(self, ws):
        return [(self.dense[w].astype(np.int32), q, s, e) for w, q, s, e in ws]

    def expand(self, table):
        """The full-vocabulary table from the dense one."""
        return table[torch.from_numpy(self.dense.astype(np.int64))]


class Layer(torch.nn.Module):
    def __init__(self, h, heads, inter):
        super().__init__()
        self.heads = heads
        lin = torch.nn.Linear
        self.query, self.key, self.value = lin(h, h), lin(h, h), lin(h, h)
        self.att_out, self.att_ln = lin(h, h), torch.nn.LayerNorm(h, eps=1e-12)
        self.inter, self.out = lin(h, inter), lin(inter, h)
        self.out_ln = torch.nn.LayerNorm(h, eps=1e-12)

    def forward(self, x, bias, exact):
        b, t, h = x.shape
        hd = h // self.heads

        def split(y):
            return y.view(b, t, self.heads, hd).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        if exact:  # the ONNX graph's order: (q k^T) / sqrt(d) + mask
            scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        else:  # cheaper in training: scale q, not the t x t scores
            scores = (q * (1 / math.sqrt(hd))) @ k.transpose(-1, -2)
        if bias is not None:
            scores = scores + bias
        ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, h)
        x = self.att_ln(self.att_out(ctx) + x)
        return self.out_ln(self.out(F.gelu(self.inter(x))) + x)


class BertQA(torch.nn.Module):
    def __init__(self, vocab, h, layers, heads, inter, positions=512, types=2, pos_scale=0.3, pos_train=False):
        super().__init__()
        self.words = torch.nn.Embedding(vocab, h)
        self.positions = torch.nn.Embedding(positions, h)
        self.types = torch.nn.Embedding(types, h)
        self.ln = torch.nn.LayerNorm(h, eps=1e-12)
        self.layers = torch.nn.ModuleList(Layer(h, heads, inter) for _ in range(layers))
        self.qa = torch.nn.Linear(h, 2)
        self.cfg = dict(vocab=vocab, hidden=h, layers=layers, heads=heads, intermediate=inter,
                        positions=positions, types=types)
        for m in self.modules():
            if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)):
                torch.nn.init.normal_(m.weight, std=0.02)
            if isinstance(m, torch.nn.Linear):
                torch.nn.init.zeros_(m.bias)
        with torch.no_grad():
            self.words.weight[0].zero_()  # [PAD], as BERT initialises it
            pos = torch.arange(positions, dtype=torch.float32)[:, None]
            freq = torch.exp(torch.arange(0, h, 2, dtype=torch.float32) * (-math.log(10000.0) / h))
            self.positions.weight[:, 0::2] = pos_scale * torch.sin(pos * freq)
            self.positions.weight[:, 1::2] = pos_scale * torch.cos(pos * freq)
        if pos_scale == 0:
            torch.nn.init.normal_(self.positions.weight, std=0.02)
        self.positions.weight.requires_grad_(pos_train)

    def forward(self, ids, types, mask, exact=False):
        t = ids.shape[1]
        x = self.words(ids) + self.types(types) + self.positions.weight[:t]  # (word + type) + position, as the graph
        x = self.ln(x)
        bias = None
        if exact or not bool(mask.all()):
            bias = ((1 - mask[:, None, None, :].float()) * MASKED)
        for layer in self.layers:
            x = layer(x, bias, exact)
        logits = self.qa(x)
        return logits[..., 0], logits[..., 1]

    def state_dict_hf(self):
        """The parameters under BertForQuestionAnswering's names and layouts."""
        sd = {
            "bert.embeddings.word_embeddings.weight": self.words.weight,
            "bert.embeddings.position_embeddings.weight": self.positions.weight,
            "bert.embeddings.token_type_embeddings.weight": self.types.weight,
            "bert.embeddings.LayerNorm.weight": self.ln.weight,
            "bert.embeddings.LayerNorm.bias": self.ln.bias,
            "qa_outputs.weight": self.qa.weight,
            "qa_outputs.bias": self.qa.bias,
        }
        for i, l in enumerate(self.layers):
            p = f"bert.encoder.layer.{i}."
            for name, mod in [("attention.self.query", l.query), ("attention.self.key", l.key),
                              ("attention.self.value", l.value), ("attention.output.dense", l.att_out),
                              ("attention.output.LayerNorm", l.att_ln), ("intermediate.dense", l.inter),
                              ("output.dense", l.out), ("output.LayerNorm", l.out_ln)]:
                sd[p + name + ".weight"] = mod.weight
                sd[p + name + ".bias"] = mod.bias
        return sd


def batches(windows, budget, rng):
    """Length-bucketed batches of at most `budget` padded tokens, shuffled."""
    order = rng.permutation(len(windows))
    chunk = 64 * max(1, budget // 384)
    out = []
    for c in range(0, len(order), chunk):
        part = sorted(order[c : c + chunk], key=lambda i: len(windows[i][0]))
        cur, longest = [], 0
        for i in part:
            n = len(windows[i][0])
            if cur and max(longest, n) * (len(cur) + 1) > budget:
                out.append(cur)
                cur, longest = [], 0
            cur.append(i)
            longest = max(longest, n)
        if cur:
            out.append(cur)
    rng.shuffle(out)
    return out


def tensors(windows, idx):
    t = max(len(windows[i][0]) for i in idx)
    ids = torch.zeros(len(idx), t, dtype=torch.long)
    types = torch.zeros(len(idx), t, dtype=torch.long)
    mask = torch.zeros(len(idx), t, dtype=torch.long)
    allowed = torch.zeros(len(idx), t, dtype=torch.bool)
    start = torch.zeros(len(idx), dtype=torch.long)
    end = torch.zeros(len(idx), dtype=torch.long)
    for r, i in enumerate(idx):
        w, qlen, s, e = windows[i]
        n = len(w)
        ids[r, :n] = torch.from_numpy(w.astype(np.int64))
        types[r, qlen + 2 : n] = 1
        mask[r, :n] = 1
        allowed[r, 0] = True  # [CLS]: the no-answer label
        allowed[r, qlen + 2 : n - 1] = True  # the context, as HF's p_mask
        start[r], end[r] = s, e
    return ids, types, mask, allowed, start, end


def loss_fn(model, batch):
    ids, types, mask, allowed, start, end = batch
    s, e = model(ids, types, mask)
    # The softmax HF's decoding takes: over the context and [CLS] only.
    s = s.masked_fill(~allowed, MASKED)
    e = e.masked_fill(~allowed, MASKED)
    return (F.cross_entropy(s, start) + F.cross_entropy(e, end)) / 2


def load_phases(phases, rng):
    """Each phase's windows: every one with the answer, a share of the rest."""
    plan = []
    for path, steps, budget, neg in phases:
        ws = [w for p in path.split("+") for w in read_windows(p)]
        if neg < 1:
            ws = [w for w in ws if w[2] > 0 or rng.rand() < neg]
        plan.append((path, ws, steps, budget))
        print(f"{path}: {len(ws)} windows ({sum(1 for w in ws if w[2] > 0)} with the answer), "
              f"{steps} steps of {budget} tokens", flush=True)
    return plan


def train(model, plan, lr, rng, log_every):
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
            loss = loss_fn(model, tensors(ws, queue.pop()))
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


def round_fp16(model):
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.half().float())


def write_safetensors(path, tensors_, metadata):
    header, blobs, off = {}, [], 0
    for name in sorted(tensors_):
        t = tensors_[name].detach().contiguous()
        dtype = {torch.float16: "F16", torch.float32: "F32", torch.int64: "I64"}[t.dtype]
        b = t.numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def window_accuracy(model, path, limit=1200):
    """Share of held-out windows whose argmax start and end are both right
    (the answer's tokens, or [CLS] where the window lacks it), by the
    question's first token, with and without the answer."""
    ws = read_windows(path)
    pos, neg = [w for w in ws if w[2] > 0], [w for w in ws if w[2] == 0]
    ws = pos[:: max(1, len(pos) // (limit // 2))] + neg[:: max(1, len(neg) // (limit // 2))]
    model.eval()
    right = {}
    with torch.no_grad():
        for c in range(0, len(ws), 16):
            idx = list(range(c, min(c + 16, len(ws))))
            ids, types, mask, allowed, start, end = tensors(ws, idx)
            s, e = model(ids, types, mask)
            s, e = s.masked_fill(~allowed, MASKED), e.masked_fill(~allowed, MASKED)
            ok = (s.argmax(-1) == start) & (e.argmax(-1) == end)
            for k, i in enumerate(idx):
                key = (int(ws[i][0][1]), ws[i][2] > 0)
                r = right.setdefault(key, [0, 0])
                r[0] += int(ok[k])
                r[1] += 1
    model.train()
    return " ".join(f"{QWORD.get(q, q)}{'+' if pos else '-'}:{r[0]}/{r[1]}" for (q, pos), r in sorted(right.items()))


# The first token of each gencorpus question, to label the accuracy.
QWORD = {2040: "who", 2073: "where", 2043: "when", 1999: "in", 2054: "what", 2129: "how"}


def parity_set(model, path, count):
    """A padded batch of windows (with and without answers, mixed lengths)
    and the logits the fp16-rounded model gives them, in the ONNX graph's
    arithmetic order."""
    ws = read_windows(path)
    pos = [w for w in ws if w[2] > 0][:count // 2]
    neg = [w for w in ws if w[2] == 0][:count - len(pos)]
    chosen = pos + neg
    ids, types, mask, _, _, _ = tensors(chosen, list(range(len(chosen))))
    model.eval()
    with torch.no_grad():
        s, e = model(ids, types, mask, exact=True)
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types,
            "start_logits": s.float(), "end_logits": e.float()}


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
    plan = load_phases(phases, rng)
    vocab = Vocab(ws for _, ws, _, _ in plan)
    plan = [(path, vocab.remap(ws), steps, budget) for path, ws, steps, budget in plan]
    print(f"{len(vocab.ids)} distinct token ids in training", flush=True)
    model = BertQA(len(vocab.ids), a.hidden, a.layers, a.heads, a.intermediate, pos_scale=a.pos_scale, pos_train=a.pos_train)
    model.train()
    secs, cpu = train(model, plan, a.lr, rng, a.log_every)
    print(f"trained in {secs:.0f}s wall, {cpu:.0f}s CPU, {a.threads} thread(s); load average {os.getloadavg()[0]:.1f}", flush=True)
    full = torch.nn.Embedding(30522, a.hidden)
    with torch.no_grad():
        full.weight.copy_(vocab.expand(model.words.weight))
    model.words = full

    round_fp16(model)
    print("held-out windows right:", window_accuracy(model, a.heldout or a.parity_windows), flush=True)
    meta = {"format": "pt", "architecture": "BertForQuestionAnswering", "num_attention_heads": a.heads,
            "layer_norm_eps": 1e-12, "hidden_act": "gelu", "seed": a.seed,
            "recipe": " ".join(sys.argv[1:])}  # no timings: the same recipe writes the same bytes
    sd = {k: v.half() for k, v in model.state_dict_hf().items()}
    write_safetensors(f"{a.out}/model.safetensors", sd, meta)
    write_safetensors(f"{a.out}/parity.safetensors", parity_set(model, a.parity_windows, 6), {"format": "pt"})
    print(f"wrote {a.out}/model.safetensors and {a.out}/parity.safetensors")


if __name__ == "__main__":
    main()
