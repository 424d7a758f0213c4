#!/usr/bin/env python3
"""torch_reference.py --model DIR --shapes 21x384,42x384 [--device cuda]

The reference a Python user would run instead of qa-shard: the same weights
as transformers' BertForQuestionAnswering, timed at the same batch shapes in
fp32 and fp16. The generated models name their ONNX initializers as Hugging
Face names the parameters, so they load as a state dict (MatMul weights are
stored [in, out], nn.Linear wants [out, in]); the load is strict, so a name
or shape that does not fit fails. Prints one JSON object per line:
  {"dtype": "fp32", "rows": 21, "len": 384, "windows_per_s": ..., ...}
or {"unavailable": "..."} (exit 3) when torch, transformers or onnx is
missing, {"error": "..."} (exit 1) when the weights do not load.
"""
import argparse
import json
import sys
import time


def emit(**kw):
    print(json.dumps(kw), flush=True)


def state_dict(onnx_path, torch, onnx, numpy_helper):
    sd = {}
    for init in onnx.load(onnx_path).graph.initializer:
        if not init.name.startswith(("bert.", "qa_outputs.")):
            continue  # constants of the graph (shapes, scalars)
        a = numpy_helper.to_array(init)
        if a.ndim == 2 and init.name.endswith(".weight") and ".embeddings." not in init.name:
            a = a.T
        sd[init.name] = torch.from_numpy(a.copy())
    return sd


def batch(torch, rows, length, vocab, device):
    g = torch.Generator().manual_seed(rows * 1000 + length)
    ids = torch.randint(1000, vocab, (rows, length), generator=g)
    ids[:, 0], ids[:, length // 4], ids[:, -1] = 101, 102, 102
    types = torch.zeros_like(ids)
    types[:, length // 4 + 1:] = 1
    mask = torch.ones_like(ids)
    return {k: v.to(device) for k, v in (("input_ids", ids), ("token_type_ids", types), ("attention_mask", mask))}


def timed(torch, model, inputs, seconds, device):
    with torch.inference_mode():
        for _ in range(2):
            out = model(**inputs)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        n, start = 0, time.perf_counter()
        while n < 3 or time.perf_counter() - start < seconds:
            out = model(**inputs)
            if device.startswith("cuda"):
                torch.cuda.synchronize()
            n += 1
        return n / (time.perf_counter() - start), out.start_logits.float().cpu()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="model directory (model.onnx, config.json)")
    ap.add_argument("--shapes", required=True, help="ROWSxLEN,... batch shapes")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--dtypes", default="fp32,fp16")
    ap.add_argument("--seconds", type=float, default=2.0, help="timed run per shape and dtype")
    args = ap.parse_args()
    try:
        import onnx
        import torch
        from onnx import numpy_helper
        from transformers import BertConfig, BertForQuestionAnswering
    except Exception as e:  # ImportError, or a broken install
        emit(unavailable=f"python3 cannot import torch, transformers and onnx: {e}")
        return 3
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    config = BertConfig.from_pretrained(args.model)
    config._attn_implementation = "sdpa"  # PyTorch's fused scaled_dot_product_attention, what transformers picks by default
    model = BertForQuestionAnswering(config)
    sd = state_dict(f"{args.model}/model.onnx", torch, onnx, numpy_helper)
    missing, unexpected = model.load_state_dict(sd, strict=False)
    missing = [k for k in missing if not k.endswith(("position_ids", "token_type_ids"))]
    if missing or unexpected:
        emit(error=f"weights do not fit BertForQuestionAnswering: missing {missing[:5]}, unexpected {unexpected[:5]}")
        return 1
    model.eval().to(args.device)
    fp32_logits = {}
    for dtype in args.dtypes.split(","):
        if dtype == "fp16":
            model.half()
        for rows, length in shapes:
            inputs = batch(torch, rows, length, config.vocab_size, args.device)
            rate, logits = timed(torch, model, inputs, args.seconds, args.device)
            rec = {"dtype": dtype, "rows": rows, "len": length, "windows_per_s": round(rate * rows, 2),
                   "torch": torch.__version__, "device": args.device,
                   "attn": getattr(config, "_attn_implementation", None) or "default"}
            if dtype == "fp32":
                fp32_logits[(rows, length)] = logits
            elif (rows, length) in fp32_logits:
                rec["max_abs_diff_vs_fp32"] = round(float((logits - fp32_logits[(rows, length)]).abs().max()), 5)
            emit(**rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
