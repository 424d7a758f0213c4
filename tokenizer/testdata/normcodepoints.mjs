// Exhaustive per-code-point reference for the Unicode normalizers and the
// splitting pre-tokenizers: how Hugging Face tokenizers (npm
// tokenizers@0.23.2) treats every Unicode scalar value. The Go test
// TestNormalizerCodepointParity compares the project against the output,
// and tools/normtables reads HF's tables off it. Not committed (about
// 100 MB); regenerate it from the repository root with:
//
//   (cd tokenizer/testdata && npm ci)
//   node tokenizer/testdata/normcodepoints.mjs build/normcodepoints.tsv
//   QA_SHARD_PARITY_NORM=$PWD/build/normcodepoints.tsv go test -tags parity ./tokenizer -run TestNormalizerCodepointParity -v
//   go run ./tools/normtables -in build/normcodepoints.tsv -o tokenizer/internal/chars/unicode_tables.go
//
// Each line, tab-separated: the code point (decimal), then one JSON value
// per probe of normprobes.json (normalizers: the normalized string; pre-
// tokenizers: the [word, [start, end]] list), in that order.
import { Tokenizer } from 'tokenizers';
import { createWriteStream } from 'node:fs';
import { readFileSync } from 'node:fs';

const normProbes = JSON.parse(readFileSync(new URL('./normprobes.json', import.meta.url), 'utf8'));

const [outPath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: node normcodepoints.mjs OUT_TSV');
  process.exit(2);
}

const model = { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: { '[UNK]': 0 } };
const probes = normProbes.map((p) => {
  const tok = Tokenizer.fromString(JSON.stringify({
    version: '1.0', truncation: null, padding: null, added_tokens: [],
    normalizer: p.normalizer ?? null, pre_tokenizer: p.pre_tokenizer ?? null,
    post_processor: null, decoder: null, model,
  }));
  const run = p.normalizer
    ? ((n) => (s) => n.normalizeString(s))(tok.getNormalizer())
    : ((pt) => (s) => pt.preTokenizeString(s))(tok.getPreTokenizer());
  // {c} is the code point; {nfd} and {nfkd} its NFD and NFKD as
  // String.prototype.normalize (ICU) writes them, which the column then
  // carries as [input, output].
  const derived = p.input.includes('{nfd}') || p.input.includes('{nfkd}');
  const input = (c) => p.input.replaceAll('{c}', c).replaceAll('{nfd}', c.normalize('NFD')).replaceAll('{nfkd}', c.normalize('NFKD'));
  return { run: derived ? (s) => [s, run(s)] : run, input };
});

const out = createWriteStream(outPath);
let chunk = [];
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue; // surrogates are not chars
  const c = String.fromCodePoint(cp);
  const cols = probes.map((p) => JSON.stringify(p.run(p.input(c))));
  chunk.push(`${cp}\t${cols.join('\t')}\n`);
  if (chunk.length === 65536) {
    if (!out.write(chunk.join(''))) await new Promise((r) => out.once('drain', r));
    chunk = [];
  }
}
out.write(chunk.join(''));
out.end();
