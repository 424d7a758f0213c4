"""ONNX Runtime's own transformer optimizer on a standard export, as its
documentation runs it: model_type bert, opt_level 99, CPU. Prints the
operators of the result, so the table says what it fused.

    python optimize.py SRC.onnx DST.onnx NUM_HEADS HIDDEN
"""
import collections
import sys

from onnxruntime.transformers import optimizer


def main(src, dst, heads, hidden):
    m = optimizer.optimize_model(src, model_type="bert", num_heads=int(heads), hidden_size=int(hidden),
                                 opt_level=99, use_gpu=False)
    m.save_model_to_file(dst)
    ops = collections.Counter(n.op_type for n in m.model.graph.node)
    fused = [f"{n} {ops[n]}" for n in ("Attention", "MultiHeadAttention", "SkipLayerNormalization", "EmbedLayerNormalization",
                                       "BiasGelu", "FastGelu", "Gelu", "LayerNormalization") if ops[n]]
    print(", ".join(fused) or "nothing fused")


if __name__ == "__main__":
    main(*sys.argv[1:])
