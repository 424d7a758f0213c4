#!/usr/bin/python3
"""Golden token ids of transformers' BertJapaneseTokenizer, for qa-shard's
Japanese BERT tests (tokenizer/modeldir/japanese_test.go).

transformers cannot be installed where this runs, so this script follows
the logic of its slow tokenizer step by step, written from reading
src/transformers/models/bert_japanese/tokenization_bert_japanese.py
(MecabTokenizer, CharacterTokenizer, BertJapaneseTokenizer._tokenize),
models/bert/tokenization_bert.py (BasicTokenizer, WordpieceTokenizer) and
tokenization_utils.py (PreTrainedTokenizer.tokenize: do_lower_case's pass,
the added-token trie), over MeCab's own Python binding (python3-mecab:
the same libmecab, none of qa-shard's code). fugashi, which transformers
uses, yields the surfaces of parseToNode's nodes between BOS and EOS; so
does this.

Usage (make ja-goldens runs it):
  golden.py --vocab VOCAB.txt --ipadic DIR --unidic DIR --out DIR [TEXTFILE...]
TEXTFILEs are UTF-8 files (.gz read as gzip) whose lines with Japanese
are taken as texts; the hostile strings below are added to them.
"""

import argparse
import gzip
import json
import os
import re
import sys
import unicodedata

import MeCab

SPECIALS = ["[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"]

# Strings built to break a tokenizer: widths, NFKC-changing chars, emoji,
# newlines, Latin and digits inside Japanese, long runs, literal specials.
HOSTILE = [
    "ＡＢＣｄｅｆ１２３はabcdef123と同じ？",
    "㍉㌔㌢㍍①②③⑴⒜㈱㊤ｶﾞｷﾞｸﾞﾊﾟﾋﾟﾌﾟｳﾞ",
    "ﾃﾞｰﾀﾍﾞｰｽのﾊﾞｯｸｱｯﾌﾟを取得しました｡",
    "絵文字😀👍🏽👨‍👩‍👧‍👦と🇯🇵の混在テスト",
    "改行\nを含む\r\nテキスト\tタブ　全角スペース",
    "東京都港区1-2-3 ABCビル5F (TEL: 03-1234-5678)",
    "iPhone15とGalaxyS24を比較したレビュー記事です。",
    "これは[SEP]文の区切り[CLS]と[MASK]を含む[UNK][PAD]",
    "[SEP][SEP]連続[SEP] [SEP] 空白付き",
    "[sep]小文字のトークンと[ SEP ]崩れた形",
    "あ" * 2000,
    "日本語" * 700,
    "ア" * 150 + "イ" * 150,
    "x" * 2000,
    "1234567890" * 200,
    "ＡＢＣＤＥＦＧＨＩＪ" * 20,
    "İstanbulとΣΑΣとẞ大文字",
    "Ｈｅｌｌｏ　Ｗｏｒｌｄ！　ﾊﾛｰﾜｰﾙﾄﾞ",
    "e\u0301とé、か\u3099と\u304c",
    "\u00a0ノーブレーク\u2003スペース\u200bゼロ幅",
    "（株）日本電気　ＮＥＣ㈱、℡０１２０",
    "ℌℑℜ ⅠⅡⅢⅳ ﬁﬂ ½¼ ²³",
    "句読点、。，．・「」『』【】〔〕！？",
    "",
    "   ",
    "。",
]


def load_vocab(path):
    vocab = {}
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f.readlines()):
            vocab[line.rstrip("\n")] = i
    return vocab


def is_whitespace(c):
    return c in " \t\n\r" or unicodedata.category(c) == "Zs"


def is_control(c):
    if c in "\t\n\r":
        return False
    return unicodedata.category(c).startswith("C")


def is_punctuation(c):
    cp = ord(c)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(c).startswith("P")


class Mecab:
    """MecabTokenizer over python3-mecab."""

    def __init__(self, dicdir, lower, never_split, normalize_text):
        rc = os.path.join(dicdir, "mecabrc")
        if not os.path.exists(rc):
            rc = os.devnull
        self.tagger = MeCab.Tagger("-d %s -r %s" % (dicdir, rc))
        self.lower, self.never, self.nfkc = lower, never_split, normalize_text

    def tokenize(self, text):
        if self.nfkc:
            text = unicodedata.normalize("NFKC", text)
        out = []
        node = self.tagger.parseToNode(text)
        while node:
            if node.stat not in (2, 3):
                tok = node.surface
                if self.lower and tok not in self.never:
                    tok = tok.lower()
                out.append(tok)
            node = node.next
        return out


class Basic:
    """BasicTokenizer(tokenize_chinese_chars=False, strip_accents=None)."""

    def __init__(self, lower, never_split):
        self.lower, self.never = lower, set(never_split)

    def tokenize(self, text):
        text = "".join(" " if is_whitespace(c) else c for c in text
                       if not (ord(c) in (0, 0xFFFD) or is_control(c)))
        text = unicodedata.normalize("NFC", text)
        split = []
        for tok in text.split():
            if tok not in self.never:
                if self.lower:
                    tok = tok.lower()
                    tok = "".join(c for c in unicodedata.normalize("NFD", tok)
                                  if unicodedata.category(c) != "Mn")
            split.extend(self.split_punc(tok))
        return " ".join(split).split()

    def split_punc(self, tok):
        if tok in self.never:
            return [tok]
        out, new = [], True
        for c in tok:
            if is_punctuation(c):
                out.append([c])
                new = True
            else:
                if new:
                    out.append([])
                new = False
                out[-1].append(c)
        return ["".join(x) for x in out]


def wordpiece(vocab, text, unk="[UNK]", max_chars=100):
    out = []
    for tok in text.split():
        if len(tok) > max_chars:
            out.append(unk)
            continue
        start, subs = 0, []
        while start < len(tok):
            end, cur = len(tok), None
            while start < end:
                s = tok[start:end]
                if start > 0:
                    s = "##" + s
                if s in vocab:
                    cur = s
                    break
                end -= 1
            if cur is None:
                subs = None
                break
            subs.append(cur)
            start = end
        out.extend([unk] if subs is None else subs)
    return out


def characters(vocab, text, unk="[UNK]"):
    text = unicodedata.normalize("NFKC", text)
    return [c if c in vocab else unk for c in text]


class BertJapanese:
    def __init__(self, vocab, cfg, dicdirs):
        self.vocab = vocab
        self.lower = cfg.get("do_lower_case", False)
        never = cfg.get("never_split") or []
        kw = cfg.get("mecab_kwargs") or {}
        if cfg.get("word_tokenizer_type", "basic") == "mecab":
            # never_split of _tokenize: the class's plus all_special_tokens.
            self.words = Mecab(dicdirs[kw.get("mecab_dic", "ipadic")], self.lower,
                               list(never) + SPECIALS, kw.get("normalize_text", True))
        else:
            self.words = Basic(self.lower, list(never) + SPECIALS)
        self.character = cfg.get("subword_tokenizer_type", "wordpiece") == "character"
        esc = [re.escape(s) for s in SPECIALS]
        self.lower_re = re.compile(r"(" + r"|".join(esc) + r")|" + r"(.+?)", re.DOTALL)

    def _tokenize(self, text):
        out = []
        for w in self.words.tokenize(text):
            out.extend(characters(self.vocab, w) if self.character else wordpiece(self.vocab, w))
        return out

    def split_trie(self, text):
        # The trie's split: at each place the earliest-starting added
        # token, the longest of those starting there.
        parts, start, i = [], 0, 0
        while i < len(text):
            best = None
            for s in SPECIALS:
                if text.startswith(s, i) and (best is None or len(s) > len(best)):
                    best = s
            if best is None:
                i += 1
                continue
            parts.append(text[start:i])
            parts.append(best)
            i += len(best)
            start = i
        parts.append(text[start:])
        return parts

    def tokenize(self, text):
        if self.lower:
            text = self.lower_re.sub(lambda m: m.groups()[0] or m.groups()[1].lower(), text)
        out = []
        for part in self.split_trie(text):
            if not part:
                continue
            if part in SPECIALS:
                out.append(part)
            else:
                out.extend(self._tokenize(part))
        return out

    def ids(self, tokens):
        return [self.vocab.get(t, self.vocab["[UNK]"]) for t in tokens]


# The tokenizer_config.json variants the Go test writes beside the real
# vocabulary; "dic" says which dictionary folder --ipadic / --unidic gives.
VARIANTS = {
    "ipadic-wordpiece": {"word_tokenizer_type": "mecab", "mecab_kwargs": {"mecab_dic": "ipadic"}},
    "ipadic-character": {"word_tokenizer_type": "mecab", "subword_tokenizer_type": "character",
                         "mecab_kwargs": {"mecab_dic": "ipadic"}},
    "ipadic-lower-raw": {"word_tokenizer_type": "mecab", "do_lower_case": True, "never_split": ["ＡＢＣ"],
                         "mecab_kwargs": {"mecab_dic": "ipadic", "normalize_text": False}},
    "unidic-wordpiece": {"word_tokenizer_type": "mecab", "mecab_kwargs": {"mecab_dic": "unidic"}},
    "unidic-character": {"word_tokenizer_type": "mecab", "subword_tokenizer_type": "character",
                         "mecab_kwargs": {"mecab_dic": "unidic"}},
    "basic-wordpiece": {"word_tokenizer_type": "basic"},
    "basic-lower": {"word_tokenizer_type": "basic", "do_lower_case": True},
}

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def read_texts(paths, limit):
    """The distinct lines with Japanese of every file, then at most limit
    of them spread evenly over the whole list (every file contributes)."""
    texts, seen = [], set()
    for p in paths:
        opener = gzip.open if p.endswith(".gz") else open
        try:
            with opener(p, "rt", encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (UnicodeDecodeError, OSError):
            continue
        for line in lines:
            line = line.strip()
            if JAPANESE.search(line) and line not in seen and "\x00" not in line:
                seen.add(line)
                texts.append(line)
    if len(texts) > limit:
        texts = [texts[i * len(texts) // limit] for i in range(limit)]
    return texts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--ipadic", required=True)
    ap.add_argument("--unidic", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--lines", type=int, default=3000, help="real lines at most, spread evenly over the files")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    texts = read_texts(sorted(a.files), a.lines) + HOSTILE
    vocab = load_vocab(a.vocab)
    dicdirs = {"ipadic": a.ipadic, "unidic": a.unidic}
    os.makedirs(a.out, exist_ok=True)
    with gzip.GzipFile(os.path.join(a.out, "texts.jsonl.gz"), "wb", mtime=0) as f:
        for t in texts:
            f.write((json.dumps(t, ensure_ascii=False) + "\n").encode())
    for name, cfg in VARIANTS.items():
        tk = BertJapanese(vocab, cfg, dicdirs)
        n = 0
        with gzip.GzipFile(os.path.join(a.out, name + ".jsonl.gz"), "wb", mtime=0) as f:
            for t in texts:
                toks = tk.tokenize(t)
                n += len(toks)
                f.write((json.dumps({"ids": tk.ids(toks), "tokens": toks}, ensure_ascii=False) + "\n").encode())
        with open(os.path.join(a.out, name + ".config.json"), "w") as f:
            json.dump(dict(cfg, tokenizer_class="BertJapaneseTokenizer"), f, ensure_ascii=False, indent=1, sort_keys=True)
            f.write("\n")
        print("%s: %d texts, %d tokens" % (name, len(texts), n), file=sys.stderr)


if __name__ == "__main__":
    main()
