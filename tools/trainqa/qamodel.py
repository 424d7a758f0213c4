"""BertForQuestionAnswering in plain PyTorch, computing what the ONNX graph
of package testmodel computes, under Hugging Face's parameter names."""
import math

import torch
import torch.nn.functional as F

MASKED = -10000.0  # what BERT adds for padding, and HF's decoding for masked logits


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
    def __init__(self, vocab, h, layers, heads, inter, positions=512, types=2, pos_scale=0.3, pos_train=False, pad=0):
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
            self.words.weight[pad].zero_()  # the padding row, as BERT initialises it
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


