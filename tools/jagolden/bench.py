#!/usr/bin/python3
"""The Python reference of make bench-tokenizers for Japanese BERT:
golden.py's BertJapaneseTokenizer logic over python3-mecab, timed on the
contexts of a JSONL corpus the way tools/tokbench times qa-shard (one
JSON line: tokens, seconds, tokens per second; the first pass over the
corpus is a warm-up).

  bench.py corpus TEXTS.jsonl.gz OUT.jsonl      documents of 20 texts each
  bench.py time --vocab V --ipadic DIR CORPUS   time the ipadic-wordpiece variant
"""

import gzip
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden  # noqa: E402


def corpus(texts, out):
    with gzip.open(texts, "rt", encoding="utf-8") as f:
        lines = [json.loads(l) for l in f]
    with open(out, "w", encoding="utf-8") as f:
        for i in range(0, len(lines), 20):
            f.write(json.dumps({"id": "ja%04d" % (i // 20), "context": "\n".join(lines[i:i + 20])}, ensure_ascii=False) + "\n")


def timed(vocab, ipadic, path, rounds=3):
    tk = golden.BertJapanese(golden.load_vocab(vocab), golden.VARIANTS["ipadic-wordpiece"], {"ipadic": ipadic})
    with open(path, encoding="utf-8") as f:
        texts = [json.loads(l)["context"] for l in f]
    tokens, elapsed = 0, 0.0
    for r in range(rounds):
        start = time.perf_counter()
        n = sum(len(tk.ids(tk.tokenize(t))) for t in texts)
        if r > 0:
            tokens += n
            elapsed += time.perf_counter() - start
    print(json.dumps({"tokens": tokens, "seconds": elapsed, "tokens_per_s": tokens / elapsed}))


if __name__ == "__main__":
    if sys.argv[1] == "corpus":
        corpus(sys.argv[2], sys.argv[3])
    else:
        a = dict(zip(sys.argv[2:-1:2], sys.argv[3:-1:2]))
        timed(a["--vocab"], a["--ipadic"], sys.argv[-1])
