"""Training windows: the files tools/trainqa writes, the dense vocabulary,
length-bucketed batches and their tensors."""
import numpy as np
import torch


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


