// Writes families/<family>.golden.json: what the official Hugging Face
// tokenizers (npm tokenizers@0.23.2, the Rust core) gives for every
// (question, context) pair of pairs.json and hostile.json under one model
// family's tokenizer.json (built by tools/familyjson). From the
// repository root, `make tokenizer-goldens` regenerates all four; by hand:
//
//   make tokenizer-fixtures
//   (cd tokenizer/testdata && npm ci)
//   node tokenizer/testdata/family-golden.mjs build/tokenizers/albert/tokenizer.json \
//     tokenizer/testdata/families/albert.golden.json tokenizer/testdata/pairs.json tokenizer/testdata/hostile.json
//
// With --no-tokens first, "tokens" is left out (the goldens of real files
// written by others, ../shared/real-tokenizers, keep ids and offsets only).
//
// The file is a JSON array, one record a line:
//   {"name", "question", "context",
//    "hf": the pair encoding tok.encode(question, context), no truncation:
//          {"ids", "tokens", "type_ids", "sequence_ids" (null on specials),
//           "word_ids" (null on specials), "offsets" ([start, end] in code
//           points of the question or of the context, [0, 0] on specials)},
//    "windows": what truncation "only_second" with max_length 64 and stride
//          16 and overflowing tokens gives, the first window then each
//          overflowing one: [{"ids", "type_ids", "sequence_ids", "word_ids",
//          "offsets"}, ...] (a single window when the pair fits), or instead
//    "windows_error": when tokenizers refuses: the question leaves no room
//          (its error message), or 64 - question - specials <= 16 (tokenizers
//          panics: "`stride` must be strictly less than `max_len`"),
//    "binding_windows": how many of these windows the binding's own
//          truncation returned whole (see below); fewer than "windows" means
//          it lost or cut the rest}
//
// Why the windows are cut here and not taken from the binding: tokenizers
// 0.23's truncation early exit (huggingface/tokenizers PR 1990, issue 2091) tokenizes
// only the first max_length tokens of the context once truncation is set,
// so getOverflowing() stops after those and its last window ends early as if
// the context ended there. The windows written are the 0.22 behaviour that
// question-answering preprocessing relies on: the full pair encoding cut
// where Encoding::truncate cuts the context (see cut()). The script checks
// them against the binding's own truncation (each window it returns must
// equal ours, its last one may stop early) and against tokenizers'
// Encoding.truncate + postProcess, and exits 1 on any difference.
import { Tokenizer } from 'tokenizers';
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const noTokens = args[0] === '--no-tokens';
if (noTokens) args.shift();
const [tokPath, outPath, ...pairPaths] = args;
if (!tokPath || !outPath || pairPaths.length === 0) {
  console.error('usage: node family-golden.mjs [--no-tokens] TOKENIZER_JSON OUT_JSON PAIRS_JSON...');
  process.exit(2);
}
const MAX_LENGTH = 64;
const STRIDE = 16;

const tok = Tokenizer.fromFile(tokPath);
const post = JSON.parse(readFileSync(tokPath, 'utf8')).post_processor || {};
const view = (e) => ({
  ids: e.getIds(),
  type_ids: e.getTypeIds(),
  sequence_ids: e.getSequenceIds(),
  word_ids: e.getWordIds(),
  offsets: e.getOffsets(),
});
// diff names the first field where two windows differ, with both values.
const diff = (a, b, keys = ['ids', 'type_ids', 'sequence_ids', 'word_ids', 'offsets']) => {
  const k = keys.find((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  return k === undefined ? '' : `${k}: ${JSON.stringify(a[k]).slice(0, 400)} vs ${JSON.stringify(b[k]).slice(0, 400)}`;
};
const failures = [];

// cut restricts the full pair encoding to the windows HF's only_second
// truncation makes: the specials and question around each slice
// [start, start + budget) of the context's tokens, start stepping by
// budget - stride until a slice reaches the end of the context.
function cut(full, nAdded, qLen, cLen) {
  if (qLen + cLen + nAdded <= MAX_LENGTH) return { windows: [full] };
  const budget = MAX_LENGTH - nAdded - qLen;
  if (budget <= 0) return { error: 'Truncation error: Sequence to truncate too short to respect the provided max_length' };
  if (budget <= STRIDE) return { error: `panic: \`stride\` must be strictly less than \`max_len=${budget}\`` };
  const first = full.sequence_ids.indexOf(1);
  const last = full.sequence_ids.lastIndexOf(1);
  const windows = [];
  for (let start = 0; ; start += budget - STRIDE) {
    const stop = Math.min(start + budget, cLen);
    const keep = (_, i) => i < first || i > last || (i >= first + start && i < first + stop);
    const w = {};
    for (const k of Object.keys(full)) w[k] = full[k].filter(keep);
    // TemplateProcessing sets the template's type ids on the first window
    // only; the overflowing ones keep the context's own type id, 1 (so
    // XLM-R's later windows have 1 where its first has 0). RobertaProcessing
    // sets 0 everywhere.
    if (start > 0 && post.type === 'TemplateProcessing') {
      w.type_ids = w.type_ids.map((t, i) => (w.sequence_ids[i] === 1 ? 1 : t));
    }
    windows.push(w);
    if (stop === cLen) return { windows };
  }
}

async function windowsOf(p, full) {
  const nAdded = full.sequence_ids.filter((s) => s === null).length;
  const qLen = full.sequence_ids.filter((s) => s === 0).length;
  const cLen = full.sequence_ids.filter((s) => s === 1).length;
  const got = cut(full, nAdded, qLen, cLen);
  if (got.error && got.error.startsWith('panic')) return { windows_error: got.error }; // would abort node
  // 1. The binding's own truncation.
  tok.setTruncation(MAX_LENGTH, { stride: STRIDE, strategy: 'OnlySecond' });
  let binding;
  try {
    const e = await tok.encode(p.question, p.context);
    binding = [e, ...e.getOverflowing()].map(view);
  } catch (err) {
    binding = String(err.message || err);
  } finally {
    tok.disableTruncation();
  }
  if (got.error) {
    if (binding !== got.error) failures.push(`${p.name}: binding says ${JSON.stringify(binding)}, expected ${got.error}`);
    return { windows_error: got.error };
  }
  let trusted = 0;
  if (typeof binding === 'string' || binding.length > got.windows.length) {
    failures.push(`${p.name}: binding truncation gave ${typeof binding === 'string' ? binding : binding.length + ' windows'}`);
  } else {
    const step = MAX_LENGTH - nAdded - qLen - STRIDE;
    binding.forEach((b, i) => {
      const w = got.windows[i];
      if (i < binding.length - 1) {
        const d = diff(b, w);
        if (d) failures.push(`${p.name}: window ${i} differs from the binding's: ${d}`);
        return;
      }
      // The binding's last window may stop early, where the early exit
      // stopped tokenizing the context: at max_length tokens or later.
      const sfx = w.ids.length - 1 - w.sequence_ids.lastIndexOf(1);
      const n = b.ids.length - sfx;
      const ww = {};
      for (const k of Object.keys(w)) ww[k] = w[k].slice(0, n).concat(w[k].slice(w[k].length - sfx));
      const d = diff(b, ww);
      const end = i * step + b.sequence_ids.filter((s) => s === 1).length;
      const complete = binding.length === got.windows.length && b.ids.length === w.ids.length;
      if (d) failures.push(`${p.name}: the binding's last window is not a prefix of window ${i}: ${d}`);
      else if (!complete && end < MAX_LENGTH) failures.push(`${p.name}: the binding stops at context token ${end}`);
      trusted = complete ? binding.length : binding.length - 1;
    });
  }
  // 2. Encoding.truncate + postProcess, no truncation set. Compared: ids,
  // word ids, offsets and where the context is (type ids aside: a context
  // encoded alone has type id 0 where the pair's has 1; sequence ids of the
  // question aside: the binding leaves them null here). Not offsets where
  // the post-processor trims them (RobertaProcessing): encoding alone
  // already trimmed them once and postProcess trims again.
  const q = await tok.encode(p.question, null, { addSpecialTokens: false });
  const c = await tok.encode(p.context, null, { addSpecialTokens: false });
  if (got.windows.length > 1) c.truncate(MAX_LENGTH - nAdded - qLen, STRIDE, 'right');
  const m = tok.postProcess(q, c, true);
  const ctx = (w) => ({ ...w, sequence_ids: w.sequence_ids.map((s) => s === 1) });
  const keys = post.trim_offsets ? ['ids', 'sequence_ids', 'word_ids'] : ['ids', 'sequence_ids', 'word_ids', 'offsets'];
  const manual = [m, ...m.getOverflowing()].map(view);
  if (manual.length !== got.windows.length) {
    failures.push(`${p.name}: Encoding.truncate + postProcess gives ${manual.length} windows, not ${got.windows.length}`);
  } else {
    const md = manual.map((w, i) => diff(ctx(w), ctx(got.windows[i]), keys)).find((d) => d);
    if (md) failures.push(`${p.name}: Encoding.truncate + postProcess gives other windows: ${md}`);
  }
  return { windows: got.windows, binding_windows: trusted };
}

const out = [];
const names = new Set();
let lost = 0;
for (const path of pairPaths) {
  for (const p of JSON.parse(readFileSync(path, 'utf8'))) {
    if (names.has(p.name)) failures.push(`${path}: pair name ${p.name} used twice`);
    names.add(p.name);
    const e = await tok.encode(p.question, p.context);
    const full = view(e);
    const { ids, ...rest } = full;
    const rec = { name: p.name, question: p.question, context: p.context, hf: noTokens ? full : { ids, tokens: e.getTokens(), ...rest } };
    Object.assign(rec, await windowsOf(p, full));
    if (rec.windows && rec.binding_windows < rec.windows.length) lost++;
    out.push(rec);
  }
}
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
// One pair per line keeps diffs of the committed file readable.
writeFileSync(outPath, '[\n' + out.map((o) => JSON.stringify(o)).join(',\n') + '\n]\n');
console.log(`${out.length} pairs written to ${outPath}; the binding's own truncation lost or cut windows of ${lost}`);
