"""Training windows: the files tools/trainqa writes (and the layout JSON
beside each), the dense vocabulary, length-bucketed batches and their
tensors."""
import json
from collections import namedtuple

import numpy as np
import torch

MAGIC = 0x32574151  # "QAW2": tools/trainqa's windows format
HEAD = 7  # n, question start, question length, context start, context end, answer start, answer end

# One window as qa.Windows laid it out: input ids and type ids (numpy
# int32), where the question and the context lie, and the answer's first
# and last positions (0, 0: the cls token, no answer here).
Window = namedtuple("Window", "ids types qstart qlen cstart cend start end")


def read_windows(path):
    raw = np.fromfile(path, dtype="<i4")
    if len(raw) == 0 or raw[0] != MAGIC:
        raise SystemExit(f"{path}: not a windows file of this train.py (rerun go run ./tools/trainqa)")
    out, i = [], 1
    while i < len(raw):
        n, qs, ql, cs, ce, s, e = (int(x) for x in raw[i : i + HEAD])
        j = i + HEAD
        out.append(Window(raw[j : j + n].copy(), raw[j + n : j + 2 * n].copy(), qs, ql, cs, ce, s, e))
        i = j + 2 * n
    return out


# What the windows files of one model must agree on (the rest of the layout
# names the cut: window length, stride, questions).
SHARED = ("format", "vocab_size", "unk", "cls", "pad", "specials", "token_types", "family")


def read_layout(path):
    """The tokenizer's special ids and vocabulary size, and whether the
    model takes token types, from the JSON tools/trainqa writes beside a
    windows file."""
    with open(path + ".json") as f:
        lay = json.load(f)
    if lay.get("format") != 2:
        raise SystemExit(f"{path}.json: layout format {lay.get('format')}, want 2")
    return lay


def common_layout(paths):
    lays = [read_layout(p) for p in paths]
    words = {}
    for lay in lays:
        if any(lay[k] != lays[0][k] for k in SHARED):
            raise SystemExit(f"windows files {paths} disagree on their layout ({', '.join(SHARED)})")
        words.update(lay["question_words"])
    return dict(lays[0], question_words=words)


# Frame: what tensors() needs to know about the ids it is given: the cls
# id (positions holding it stay allowed, HF's p_mask), the padding id, and
# whether type ids are fed at all.
Frame = namedtuple("Frame", "cls pad token_types")


def frame(lay):
    """The frame of the tokenizer's own ids."""
    return Frame(lay["cls"], lay["pad"], lay["token_types"])


class Vocab:
    """The token ids the training windows use, numbered densely: the model
    trains a table of only those rows (the rest of the vocabulary would get
    no gradient anyway, and updating them costs more than the transformer).
    At export every unseen id gets the unknown token's row: the model treats
    a word it never saw as an unknown word."""

    def __init__(self, window_sets, lay):
        self.lay = lay
        unk = lay["unk"]
        used = {lay["pad"], unk, lay["cls"], *lay["specials"]}
        for ws in window_sets:
            for w in ws:
                used.update(np.unique(w.ids).tolist())
        self.ids = np.array(sorted(used), dtype=np.int64)
        self.dense = np.zeros(lay["vocab_size"], dtype=np.int32)
        self.dense[:] = np.searchsorted(self.ids, unk)
        self.dense[self.ids] = np.arange(len(self.ids))

    def remap(self, ws):
        return [w._replace(ids=self.dense[w.ids].astype(np.int32)) for w in ws]

    def frame(self):
        """The frame of the dense ids."""
        lay = self.lay
        return Frame(int(self.dense[lay["cls"]]), int(self.dense[lay["pad"]]), lay["token_types"])

    def expand(self, table):
        """The full-vocabulary table from the dense one."""
        return table[torch.from_numpy(self.dense.astype(np.int64))]


def load_phases(phases, rng):
    """Each phase's windows: every one with the answer, a share of the rest."""
    plan = []
    for path, steps, budget, neg in phases:
        ws = [w for p in path.split("+") for w in read_windows(p)]
        if neg < 1:
            ws = [w for w in ws if w.start > 0 or rng.rand() < neg]
        plan.append((path, ws, steps, budget))
        print(f"{path}: {len(ws)} windows ({sum(1 for w in ws if w.start > 0)} with the answer), "
              f"{steps} steps of {budget} tokens", flush=True)
    return plan


def batches(windows, budget, rng):
    """Length-bucketed batches of at most `budget` padded tokens, shuffled."""
    order = rng.permutation(len(windows))
    chunk = 64 * max(1, budget // 384)
    out = []
    for c in range(0, len(order), chunk):
        part = sorted(order[c : c + chunk], key=lambda i: len(windows[i].ids))
        cur, longest = [], 0
        for i in part:
            n = len(windows[i].ids)
            if cur and max(longest, n) * (len(cur) + 1) > budget:
                out.append(cur)
                cur, longest = [], 0
            cur.append(i)
            longest = max(longest, n)
        if cur:
            out.append(cur)
    rng.shuffle(out)
    return out


def tensors(windows, idx, fr):
    """A padded batch: ids, type ids (zeros when the model takes none),
    attention mask, the positions the loss may pick (the context and every
    position holding the cls id, as HF's p_mask), and the labels."""
    t = max(len(windows[i].ids) for i in idx)
    ids = torch.full((len(idx), t), fr.pad, dtype=torch.long)
    types = torch.zeros(len(idx), t, dtype=torch.long)
    mask = torch.zeros(len(idx), t, dtype=torch.long)
    allowed = torch.zeros(len(idx), t, dtype=torch.bool)
    start = torch.zeros(len(idx), dtype=torch.long)
    end = torch.zeros(len(idx), dtype=torch.long)
    for r, i in enumerate(idx):
        w = windows[i]
        n = len(w.ids)
        ids[r, :n] = torch.from_numpy(w.ids.astype(np.int64))
        if fr.token_types:
            types[r, :n] = torch.from_numpy(w.types.astype(np.int64))
        mask[r, :n] = 1
        allowed[r, w.cstart : w.cend] = True  # the context
        allowed[r, :n] |= ids[r, :n] == fr.cls  # the cls token: the no-answer label
        start[r], end[r] = w.start, w.end
    return ids, types, mask, allowed, start, end
