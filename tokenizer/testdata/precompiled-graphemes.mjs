// Grapheme-cluster reference for the Precompiled normalizer: how Hugging
// Face tokenizers (npm tokenizers@0.23.2) encodes, for every Unicode scalar
// value c, three texts where c shares a cluster with a char the charsmap
// maps, under a family's tokenizer.json (built by
// tools/familyjson; the xlmr layout applies Precompiled to the
// raw text). Precompiled looks a cluster under 6 bytes up whole, and a hit
// on its first char replaces the whole cluster, so these show exactly which
// chars extend a cluster (unicode-segmentation's Unicode version) and how
// multi-char keys match. Not committed; by hand:
//
//   make tokenizer-fixtures
//   (cd tokenizer/testdata && npm ci)
//   node tokenizer/testdata/precompiled-graphemes.mjs build/tokenizers/xlmr/tokenizer.json \
//     build/tokenizers/xlmr/graphemes.tsv
//
// Each line, tab-separated, no special tokens added: cp (decimal), then for
// each of "ª"+c+"b", c+"ª"+"b" and c+U+0301+"b" (ª is mapped to "a") its ids
// (comma-separated) and offsets ("start-end", comma-separated, code points).
import { Tokenizer } from 'tokenizers';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const [tokPath, outPath] = process.argv.slice(2);
if (!tokPath || !outPath) {
  console.error('usage: node precompiled-graphemes.mjs TOKENIZER_JSON OUT_TSV');
  process.exit(2);
}
const tok = Tokenizer.fromFile(tokPath);
const out = createWriteStream(outPath);
const CHUNK = 8192;
const texts = (c) => ['\u00aa' + c + 'b', c + '\u00aab', c + '\u0301b'];
const fmt = (e) => [e.getIds().join(','), e.getOffsets().map(([s, t]) => `${s}-${t}`).join(',')];

const started = Date.now();
let cps = [];
let lines = 0;
async function flush() {
  const inputs = cps.flatMap((cp) => texts(String.fromCodePoint(cp)));
  const encs = await tok.encodeBatch(inputs, { addSpecialTokens: false });
  const text = cps.map((cp, i) => [cp, ...encs.slice(3 * i, 3 * i + 3).flatMap(fmt)].join('\t') + '\n').join('');
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
