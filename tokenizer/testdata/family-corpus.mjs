// Parity on real text for one model family: collects several MB of text
// found on this machine at run time (Go doc comments, non-ASCII string
// lines and whole source files from $(go env GOROOT)/src, its markdown and
// text files, and tokenizer/testdata/english.txt), encodes each document as
// the context of a (question, context) pair with Hugging Face tokenizers
// (npm tokenizers@0.23.2) under a tokenizer.json built by
// tools/familyjson, and writes the reference as JSONL. Nothing
// it reads or writes is committed. From the repository root,
// `make tokenizer-corpus` writes build/tokenizers/<family>/corpus.jsonl for
// all four, or by hand:
//
//   make tokenizer-fixtures
//   (cd tokenizer/testdata && npm ci)
//   node tokenizer/testdata/family-corpus.mjs build/tokenizers/roberta/tokenizer.json \
//     "$(go env GOROOT)/src" build/tokenizers/roberta/corpus.jsonl
//
// Each line: {"text", "ids", "words", "offsets"}, the context's part of the
// pair encoding of ("What does this paragraph describe?", text): its ids,
// word ids and [start, end] code-point offsets into text (as the existing
// parity-corpus.mjs writes them for BERT). The optional 4th argument is the
// text budget in MB (default 6); the selection is deterministic.
import { Tokenizer } from 'tokenizers';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const [tokPath, goSrc, outPath, mbArg] = process.argv.slice(2);
if (!tokPath || !goSrc || !outPath) {
  console.error('usage: node family-corpus.mjs TOKENIZER_JSON GOROOT_SRC OUT_JSONL [MB]');
  process.exit(2);
}
const budget = Number(mbArg || 6) * 1e6;
const here = dirname(fileURLToPath(import.meta.url));

function walk(dir, keep, out = []) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, keep, out);
    else if (e.isFile() && keep(p) && statSync(p).size < 2e6) out.push(p);
  }
  return out;
}

const kinds = { godoc: [], nonascii: [], files: [], text: [] };
const goFiles = walk(goSrc, (p) => p.endsWith('.go'));
goFiles.forEach((file, i) => {
  const src = readFileSync(file, 'utf8');
  // Whole files (every 20th, under 20 KB): code, tabs and newlines as is.
  if (i % 20 === 0 && src.length < 20000) kinds.files.push(src);
  let para = [];
  const flush = () => {
    const t = para.join(' ').trim();
    if (t.length >= 200) kinds.godoc.push(t);
    para = [];
  };
  for (const line of src.split('\n')) {
    const m = /^\s*\/\/ ?(.*)$/.exec(line);
    if (m && m[1].trim() !== '') para.push(m[1]);
    else flush();
    if (/[^\x00-\x7f]/.test(line) && line.trim().length >= 20) kinds.nonascii.push(line.trim());
  }
  flush();
});
for (const file of walk(goSrc, (p) => /\.(md|txt)$/i.test(p) || /README$/.test(p))) {
  for (const para of readFileSync(file, 'utf8').split(/\n\s*\n/)) {
    if (para.trim().length >= 80) kinds.text.push(para);
  }
}
// An even sample of each kind, about a quarter of the budget each: every
// k-th document, k the kind's size over its share.
function sample(list, bytes) {
  const k = list.reduce((n, t) => n + t.length, 0) / bytes;
  if (k <= 1) return list;
  return list.filter((_, i) => Math.floor(i / k) !== Math.floor((i + 1) / k));
}
const english = readFileSync(join(here, 'english.txt'), 'utf8');
const chosen = [english, ...english.split(/\n\s*\n/).filter((p) => p.trim() !== '')];
for (const list of Object.values(kinds)) chosen.push(...sample(list, budget / 4));

const tok = Tokenizer.fromFile(tokPath);
const question = 'What does this paragraph describe?';
const lines = [];
let tokens = 0;
let chars = 0;
const started = Date.now();
for (let i = 0; i < chosen.length; i += 256) {
  const batch = chosen.slice(i, i + 256);
  // encodeBatch takes no pairs in this binding: encode them side by side.
  const encs = await Promise.all(batch.map((t) => tok.encode(question, t)));
  encs.forEach((e, j) => {
    const seq = e.getSequenceIds();
    const allIds = e.getIds(), allWords = e.getWordIds(), allOffsets = e.getOffsets();
    const ids = [], words = [], offsets = [];
    seq.forEach((s, k) => {
      if (s !== 1) return;
      ids.push(allIds[k]);
      words.push(allWords[k]);
      offsets.push(allOffsets[k]);
    });
    tokens += ids.length;
    chars += batch[j].length;
    lines.push(JSON.stringify({ text: batch[j], ids, words, offsets }));
  });
}
writeFileSync(outPath, lines.join('\n') + '\n');
const found = Object.entries(kinds).map(([k, v]) => `${v.length} ${k}`).join(', ');
console.log(`${chosen.length} documents (${(chars / 1e6).toFixed(1)} M chars; found ${found}), ${tokens} tokens written to ${outPath} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
