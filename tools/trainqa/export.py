"""What training leaves behind: float16 weights in a safetensors file, the
parity batch, and the held-out accuracy printed at the end."""
import json
import struct

import torch

from qamodel import MASKED
from windows import frame, read_layout, read_windows, tensors


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
    ws, lay = read_windows(path), read_layout(path)
    fr, names = frame(lay), {int(k): v for k, v in lay["question_words"].items()}
    pos, neg = [w for w in ws if w.start > 0], [w for w in ws if w.start == 0]
    ws = pos[:: max(1, len(pos) // (limit // 2))] + neg[:: max(1, len(neg) // (limit // 2))]
    model.eval()
    right = {}
    with torch.no_grad():
        for c in range(0, len(ws), 16):
            idx = list(range(c, min(c + 16, len(ws))))
            ids, types, mask, allowed, start, end = tensors(ws, idx, fr)
            s, e = model(ids, types, mask)
            s, e = s.masked_fill(~allowed, MASKED), e.masked_fill(~allowed, MASKED)
            ok = (s.argmax(-1) == start) & (e.argmax(-1) == end)
            for k, i in enumerate(idx):
                key = (int(ws[i].ids[ws[i].qstart]), ws[i].start > 0)
                r = right.setdefault(key, [0, 0])
                r[0] += int(ok[k])
                r[1] += 1
    model.train()
    return " ".join(f"{names.get(q, q)}{'+' if pos else '-'}:{r[0]}/{r[1]}" for (q, pos), r in sorted(right.items()))


def parity_set(model, path, count):
    """A padded batch of windows (with and without answers, mixed lengths)
    and the logits the fp16-rounded model gives them, in the ONNX graph's
    arithmetic order."""
    ws = read_windows(path)
    pos = [w for w in ws if w.start > 0][:count // 2]
    neg = [w for w in ws if w.start == 0][:count - len(pos)]
    chosen = pos + neg
    ids, types, mask, _, _, _ = tensors(chosen, list(range(len(chosen))), frame(read_layout(path)))
    model.eval()
    with torch.no_grad():
        s, e = model(ids, types, mask, exact=True)
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types,
            "start_logits": s.float(), "end_logits": e.float()}


