// Exhaustive per-code-point reference for one model family: how Hugging
// Face tokenizers (npm tokenizers@0.23.2) encodes every Unicode scalar value
// U+0000..U+10FFFF (surrogates excepted) under a tokenizer.json built by
// tools/familyjson. Not committed (tens of MB a family); from
// the repository root, `make tokenizer-codepoints` writes
// build/tokenizers/<family>/codepoints.tsv for all four, or by hand:
//
//   make tokenizer-fixtures
//   (cd tokenizer/testdata && npm ci)
//   node tokenizer/testdata/family-codepoints.mjs build/tokenizers/xlmr/tokenizer.json \
//     build/tokenizers/xlmr/codepoints.tsv
//
// Each line, tab-separated, no special tokens added:
//   cp            the code point, decimal
//   ids(c)        the ids of c alone, comma-separated (empty: no tokens)
//   offsets(c)    their offsets, "start-end" comma-separated, in code points
//   ids(a c b)    the ids of "a" + c + "b"
//   offsets(acb)  their offsets
// c alone shows the normalizer (NFKD, the Precompiled charsmap, lowercase,
// what is dropped) and the prefix ▁ or Ġ handling on its own; between two
// letters it shows whether c splits a word (WhitespaceSplit, Metaspace,
// the ByteLevel regex), composes with or attaches to its neighbours, and how
// the normalizer's alignments map a char that expands or vanishes.
import { Tokenizer } from 'tokenizers';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const [tokPath, outPath] = process.argv.slice(2);
if (!tokPath || !outPath) {
  console.error('usage: node family-codepoints.mjs TOKENIZER_JSON OUT_TSV');
  process.exit(2);
}
const tok = Tokenizer.fromFile(tokPath);
const out = createWriteStream(outPath);
const CHUNK = 8192;

const fmt = (e) => [e.getIds().join(','), e.getOffsets().map(([s, t]) => `${s}-${t}`).join(',')];

const started = Date.now();
let cps = [];
let lines = 0;
async function flush() {
  const inputs = [];
  for (const cp of cps) {
    const c = String.fromCodePoint(cp);
    inputs.push(c, 'a' + c + 'b');
  }
  const encs = await tok.encodeBatch(inputs, { addSpecialTokens: false });
  const text = cps.map((cp, i) => [cp, ...fmt(encs[2 * i]), ...fmt(encs[2 * i + 1])].join('\t') + '\n').join('');
  if (!out.write(text)) await once(out, 'drain');
  lines += cps.length;
  cps = [];
}
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue; // surrogates are not chars
  cps.push(cp);
  if (cps.length === CHUNK) await flush();
}
await flush();
out.end();
await once(out, 'finish');
console.log(`${lines} code points written to ${outPath} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
