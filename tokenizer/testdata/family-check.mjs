// Checks the four families' fixtures (tools/familyjson's
// output) with Hugging Face tokenizers (npm tokenizers@0.23.2): each
// tokenizer.json loads with Tokenizer.fromFile and re-saves to the same
// structure (scores may read 1 ULP off, see below), tokenizer_config.json and
// special_tokens_map.json name tokens that exist with the flags
// tokenizer.json gives them, and a few encodings equal what the real models
// give (GPT-2's ids shifted by 4 for roberta; albert-base-v2's own ids;
// ALBERT's ids in the xlmr and deberta layouts). Run by
// `make tokenizer-goldens`; by hand from the repository root:
//
//   make tokenizer-fixtures
//   (cd tokenizer/testdata && npm ci)
//   node tokenizer/testdata/family-check.mjs build/tokenizers
//
// Exits 1 and lists the failures if anything is off.
import { Tokenizer } from 'tokenizers';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

const [dir] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node family-check.mjs TOKENIZERS_DIR');
  process.exit(2);
}
const failures = [];
const fail = (msg) => failures.push(msg);
const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Deep comparison of our JSON and tokenizers' re-save. tokenizers reads
// floats with serde_json's fast parser, which can land 1 ULP away from the
// exact value: scores count as equal within 1e-15 relative, and are counted.
let ulp = 0;
function same(a, b, path) {
  if (typeof a === 'number' && typeof b === 'number') {
    if (a === b) return true;
    if (Math.abs(a - b) <= 1e-15 * Math.max(1, Math.abs(a))) return ++ulp > 0;
    return fail(`${path}: ${a} re-saved as ${b}`);
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return fail(`${path}: ${a.length} entries re-saved as ${b.length}`);
    return a.every((x, i) => same(x, b[i], `${path}[${i}]`));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a), kb = Object.keys(b);
    if (!eq(ka, kb)) return fail(`${path}: keys ${ka} re-saved as ${kb}`);
    return ka.every((k) => same(a[k], b[k], `${path}.${k}`));
  }
  return a === b || fail(`${path}: ${JSON.stringify(a)} re-saved as ${JSON.stringify(b)}`);
}

// Known encodings: [question, context or null, tokens, ids, type ids or
// null, offsets or null].
const known = {
  roberta: [
    // GPT-2: "Hello" 15496, "Ġworld" 995, "ĠHello" 18435; shifted by 4.
    ['Hello world', null, ['<s>', 'Hello', 'Ġworld', '</s>'], [0, 15500, 999, 2], null, [[0, 0], [0, 5], [6, 11], [0, 0]]],
    [' Hello world', null, ['<s>', 'ĠHello', 'Ġworld', '</s>'], [0, 18439, 999, 2], null, [[0, 0], [1, 6], [7, 12], [0, 0]]],
    ['Who?', 'Me.', ['<s>', 'Who', '?', '</s>', '</s>', 'Me', '.', '</s>'], null, [0, 0, 0, 0, 0, 0, 0, 0], null],
    // <mask> takes the space before it (lstrip), which RobertaProcessing's
    // trim_offsets then leaves out of its offsets.
    ['a <mask>', null, ['<s>', 'a', ' <mask>', '</s>'], [0, 68, 50261, 2], null, [[0, 0], [0, 1], [2, 8], [0, 0]]],
  ],
  albert: [
    // albert-base-v2: "Hello world" is [2, 10975, 126, 3].
    ['Hello world', null, ['[CLS]', '▁hello', '▁world', '[SEP]'], [2, 10975, 126, 3], null, [[0, 0], [0, 5], [6, 11], [0, 0]]],
    ['Who?', 'Me.', ['[CLS]', '▁who', '?', '[SEP]', '▁me', '.', '[SEP]'], null, [0, 0, 0, 0, 1, 1, 1], null],
    // Accents stripped, `` and '' made '"' (a piece of its own in ALBERT).
    ['Café ``x\'\'', null, ['[CLS]', '▁cafe', '▁', '"', 'x', '"', '[SEP]'], null, null, null],
    ['a [MASK]', null, ['[CLS]', '▁a', ' [MASK]', '[SEP]'], [2, 21, 4, 3], null, null],
  ],
  xlmr: [
    ['hello world', null, ['<s>', '▁hello', '▁world', '</s>'], [0, 10974, 125, 2], null, null],
    ['who?', 'me.', ['<s>', '▁who', '?', '</s>', '</s>', '▁me', '.', '</s>'], null, [0, 0, 0, 0, 0, 0, 0, 0], null],
    ['a <mask>', null, ['<s>', '▁a', ' <mask>', '</s>'], [0, 20, 29999, 2], null, null],
  ],
  deberta: [
    ['hello world', null, ['[CLS]', '▁hello', '▁world', '[SEP]'], [1, 10974, 125, 2], null, [[0, 0], [0, 5], [5, 11], [0, 0]]],
    ['who?', 'me.', ['[CLS]', '▁who', '?', '[SEP]', '▁me', '.', '[SEP]'], null, [0, 0, 0, 0, 1, 1, 1], null],
    ['a [MASK]', null, ['[CLS]', '▁a', '[MASK]', '[SEP]'], [1, 20, 29999, 2], null, null],
  ],
};

const tmp = mkdtempSync(join(tmpdir(), 'family-check-'));
for (const family of Object.keys(known)) {
  const path = join(dir, family, 'tokenizer.json');
  const ours = JSON.parse(readFileSync(path, 'utf8'));
  const tok = Tokenizer.fromFile(path);
  tok.save(join(tmp, `${family}.json`), true);
  const theirs = JSON.parse(readFileSync(join(tmp, `${family}.json`), 'utf8'));
  const merges = ours.model.merges;
  if (merges && typeof merges[0] === 'string') ours.model.merges = merges.map((m) => m.split(' '));
  same(ours, theirs, family);

  const byContent = new Map(ours.added_tokens.map((a) => [a.content, a]));
  const cfg = JSON.parse(readFileSync(join(dir, family, 'tokenizer_config.json'), 'utf8'));
  const stm = JSON.parse(readFileSync(join(dir, family, 'special_tokens_map.json'), 'utf8'));
  for (const [role, t] of Object.entries(stm)) {
    const a = byContent.get(t.content);
    if (!a || tok.tokenToId(t.content) !== a.id) fail(`${family}: ${role} ${t.content} is not an added token`);
    else if (a.lstrip !== t.lstrip || a.normalized !== t.normalized) fail(`${family}: ${role} flags differ`);
    if (cfg[role] !== t.content) fail(`${family}: tokenizer_config ${role} is ${cfg[role]}`);
  }
  for (const a of ours.added_tokens) {
    const d = cfg.added_tokens_decoder[String(a.id)];
    if (!d || d.content !== a.content || d.special !== a.special || d.lstrip !== a.lstrip) fail(`${family}: added_tokens_decoder ${a.id}`);
  }

  for (const [q, c, tokens, ids, types, offsets] of known[family]) {
    const e = await tok.encode(q, c);
    const got = [e.getTokens(), e.getIds(), e.getTypeIds(), e.getOffsets()];
    const want = [tokens, ids, types, offsets];
    ['tokens', 'ids', 'type ids', 'offsets'].forEach((what, i) => {
      if (want[i] && !eq(got[i], want[i])) fail(`${family} ${JSON.stringify([q, c])}: ${what} ${JSON.stringify(got[i])}, want ${JSON.stringify(want[i])}`);
    });
  }
  console.log(`${family}: ${Object.keys(ours.model.vocab).length} model entries, ${ours.added_tokens.length} added tokens, loaded and checked`);
}
rmSync(tmp, { recursive: true });
console.log(`${ulp} scores were read 1 ULP off by tokenizers' JSON parser (equal within 1e-15)`);
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
