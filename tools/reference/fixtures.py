"""The weight files internal/checkpoint's tests read, written by torch and
the safetensors library themselves (make checkpoint-fixtures; the files
are committed, a few KB).

usage: python fixtures.py OUT_DIR

Writes into OUT_DIR:
  state.bin          torch.save of a state dict as save_pretrained writes
                     one: float32, float16 and bfloat16 tensors, an int64
                     buffer, an nn.Parameter, two tensors sharing one
                     storage at different offsets, a 0-d tensor
  state.safetensors  the same tensors (no sharing), by safetensors.torch
  legacy.bin         torch.save with the legacy (non-zip) format
  evil-system.bin    a torch.save zip whose pickle calls os.system
  evil-eval.bin      one whose pickle calls builtins.eval
  expected.json      every tensor's dtype, shape and values
"""
import collections
import io
import json
import os
import pickle
import sys
import zipfile

import torch
from safetensors.torch import save_file


def tensors():
    g = torch.Generator().manual_seed(3)
    shared = torch.randn(10, generator=g)
    d = collections.OrderedDict()
    d["layer.weight"] = torch.randn(2, 3, generator=g)
    d["layer.bias"] = torch.randn(3, generator=g).half()
    d["norm.weight"] = torch.randn(2, 2, generator=g).bfloat16()
    d["embeddings.position_ids"] = torch.arange(4).unsqueeze(0)
    d["param"] = torch.nn.Parameter(torch.randn(4, generator=g), requires_grad=False)
    d["tied.a"] = shared[2:6]
    d["tied.b"] = shared[5:9].view(2, 2)
    d["scalar"] = torch.tensor(1.5)
    return d


class System:
    def __reduce__(self):
        return (os.system, ("echo the pickle ran code",))


class Eval:
    def __reduce__(self):
        return (eval, ("1+1",))


def evil(path, payload):
    """A torch.save zip whose data.pkl is payload's pickle."""
    buf = io.BytesIO()
    torch.save({"w": torch.zeros(2)}, buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as out:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith("/data.pkl"):
                data = pickle.dumps({"w": payload}, protocol=2)
            out.writestr(info, data)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    d = tensors()
    torch.save(d, os.path.join(out, "state.bin"))
    plain = collections.OrderedDict((k, v.detach().clone().contiguous()) for k, v in d.items())
    save_file(plain, os.path.join(out, "state.safetensors"), metadata={"format": "pt"})
    torch.save(d, os.path.join(out, "legacy.bin"), _use_new_zipfile_serialization=False)
    evil(os.path.join(out, "evil-system.bin"), System())
    evil(os.path.join(out, "evil-eval.bin"), Eval())
    names = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.int64: "I64"}
    expected = {k: {"dtype": names[v.dtype], "shape": list(v.shape), "values": v.detach().float().flatten().tolist()} for k, v in d.items()}
    json.dump(expected, open(os.path.join(out, "expected.json"), "w"), indent=1)
    print("fixtures written to", out, "with torch", torch.__version__)


if __name__ == "__main__":
    main()
