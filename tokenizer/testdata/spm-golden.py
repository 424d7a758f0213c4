"""Word-level goldens of SentencePiece models, made by SentencePiece itself
(Debian's python3-sentencepiece), for tokenizer/modeldir's converters.

For each whitespace-separated word of the test texts (pairs.json,
hostile.json, english.txt), the ids the slow tokenizer's own path gives:

  albert  ALBERT's 30k-clean.model through AlbertTokenizer's slow path
          (``/'' as ", NFKD with combining marks dropped, lowercase,
          SentencePiece, pieces ending in a digit and a comma re-encoded),
          leaving out words holding one of the model's user-defined symbols
          or a literal special token, which the fast tokenizer transformers
          converts splits differently (see tokenizer/modeldir/spm.go).
  bpe     a small BPE model trained here (spm-bpe.model, committed) through
          DebertaV2Tokenizer's slow path (SentencePiece alone; identity
          normalization, so the model has no charsmap and stays small).

Run by `make tokenizer-spm-goldens`; by hand from the repository root:

  /usr/bin/python3 tokenizer/testdata/spm-golden.py SENTENCEPIECE_JS_BUNDLE
"""
import base64
import json
import os
import re
import sys
import unicodedata

import sentencepiece as spm

here = os.path.dirname(os.path.abspath(__file__))


def texts():
    out = []
    for f in ("pairs.json", "hostile.json"):
        with open(os.path.join(here, f), encoding="utf-8") as fh:
            for p in json.load(fh):
                out += [p["question"], p["context"]]
    with open(os.path.join(here, "english.txt"), encoding="utf-8") as fh:
        out.append(fh.read())
    return out


def words():
    seen, out = set(), []
    for t in texts():
        for w in t.split():
            if w not in seen:
                seen.add(w)
                out.append(w)
    return out


def albert_ids(sp, w):
    # AlbertTokenizer.preprocess_text and _tokenize, do_lower_case=True,
    # keep_accents=False, remove_space=True.
    s = " ".join(w.strip().split()).replace("``", '"').replace("''", '"')
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c)).lower()
    pieces = []
    for piece in sp.encode(s, out_type=str):
        if len(piece) > 1 and piece[-1] == "," and piece[-2].isdigit():
            cur = sp.encode(piece[:-1].replace("\u2581", ""), out_type=str)
            if piece[0] != "\u2581" and cur[0][0] == "\u2581":
                cur = cur[1:] if len(cur[0]) == 1 else [cur[0][1:]] + cur[1:]
            pieces += cur + [piece[-1]]
        else:
            pieces.append(piece)
    return [sp.piece_to_id(p) for p in pieces]


def main():
    bundle = sys.argv[1]
    with open(bundle, encoding="utf-8") as fh:
        m = re.search(r'clean_30k_b64 = "([^"]*)"', fh.read())
    sp = spm.SentencePieceProcessor(model_proto=base64.b64decode(m.group(1)))
    user = [sp.id_to_piece(i) for i in range(sp.get_piece_size())
            if not sp.is_control(i) and not sp.is_unknown(i) and not sp.is_unused(i) and sp.get_score(i) == 0]
    specials = ["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"]
    albert = [[w, albert_ids(sp, w)] for w in words()
              if not any(u in w for u in user + specials)]
    write("albert.golden.json", albert)

    model = os.path.join(here, "spm", "spm-bpe.model")
    if not os.path.exists(model):
        # The trainer records model_prefix in the model: train inside the
        # folder with a bare name, so no path of this machine is committed.
        prefix = os.path.basename(model)[: -len(".model")]
        cwd = os.getcwd()
        os.chdir(os.path.dirname(model))
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(texts()), model_prefix=prefix, model_type="bpe", vocab_size=1200,
            character_coverage=1.0, num_threads=1, normalization_rule_name="identity", bos_id=-1, eos_id=-1, unk_id=0, pad_id=-1,
            control_symbols=["[PAD]", "[CLS]", "[SEP]", "[MASK]"], user_defined_symbols=[],
            minloglevel=2)
        os.remove(prefix + ".vocab")
        os.chdir(cwd)
    sp = spm.SentencePieceProcessor(model_file=model)
    bpe = [[w, sp.encode(w)] for w in words() if not any(s in w for s in ["[PAD]", "[CLS]", "[SEP]", "[MASK]", "<unk>"])]
    write("bpe.golden.json", bpe)


def write(name, rows):
    path = os.path.join(here, "spm", name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n]\n")
    print(f"{path}: {len(rows)} words")


main()
