// Times Hugging Face tokenizers (npm tokenizers@0.23.2, the Rust core) on
// the contexts of a JSONL corpus, one text at a time on one thread, as
// tools/tokbench times qa-shard's tokenizer on the same file; make
// bench-tokenizers puts the two side by side. Run with RAYON_NUM_THREADS=1.
//
//   node tokenizer/testdata/bench.mjs TOKENIZER_JSON CORPUS_JSONL [ROUNDS]
//
// Prints one JSON line: tokens encoded, seconds, tokens per second (the
// first round is a warm-up and is not timed).
import { Tokenizer } from 'tokenizers';
import { readFileSync } from 'node:fs';

const [tokPath, corpusPath, roundsArg] = process.argv.slice(2);
if (!tokPath || !corpusPath) {
  console.error('usage: node bench.mjs TOKENIZER_JSON CORPUS_JSONL [ROUNDS]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 3);
const tok = Tokenizer.fromFile(tokPath);
const texts = readFileSync(corpusPath, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l).context);
let tokens = 0;
let ns = 0n;
for (let r = 0; r < rounds; r++) {
  const start = process.hrtime.bigint();
  let n = 0;
  for (const t of texts) {
    n += (await tok.encode(t, null, { addSpecialTokens: false })).getIds().length;
  }
  if (r > 0) {
    tokens += n;
    ns += process.hrtime.bigint() - start;
  }
}
const seconds = Number(ns) / 1e9;
console.log(JSON.stringify({ tokens, seconds, tokens_per_s: tokens / seconds }));
