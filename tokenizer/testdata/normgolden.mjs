// Writes normalizers.golden.json: token ids and offsets that Hugging Face
// tokenizers (npm tokenizers@0.23.2) gives for edge cases and seeded
// random texts under each normalizer and splitting pre-tokenizer
// configuration below, around a WordPiece model whose vocabulary holds
// every char the normalized texts contain (each char one token, so the ids
// spell the normalized text and the offsets are its alignments). The Go
// test TestNormalizerGolden replays it. Regenerate from the repository
// root with:
//
//   (cd tokenizer/testdata && npm ci)
//   node tokenizer/testdata/normgolden.mjs > tokenizer/testdata/normalizers.golden.json
//
// A larger run for a deeper check, not committed (TestNormalizerGolden
// reads it from QA_SHARD_NORM_GOLDEN):
//
//   node tokenizer/testdata/normgolden.mjs 5000 > build/normalizers.golden.json
import { Tokenizer } from 'tokenizers';

const N = (normalizer) => ({ normalizer });
const P = (pre_tokenizer) => ({ pre_tokenizer });
const split = (pattern, behavior, invert = false) => P({ type: 'Split', pattern, behavior, invert });
const configs = {
  NFC: N({ type: 'NFC' }),
  NFD: N({ type: 'NFD' }),
  NFKC: N({ type: 'NFKC' }),
  NFKD: N({ type: 'NFKD' }),
  Lowercase: N({ type: 'Lowercase' }),
  StripAccents: N({ type: 'StripAccents' }),
  'NFD+StripAccents': N({ type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'StripAccents' }] }),
  'NFKD+StripAccents+Lowercase': N({ type: 'Sequence', normalizers: [{ type: 'NFKD' }, { type: 'StripAccents' }, { type: 'Lowercase' }] }),
  Strip: N({ type: 'Strip', strip_left: true, strip_right: true }),
  'Strip left': N({ type: 'Strip', strip_left: true, strip_right: false }),
  'Strip right': N({ type: 'Strip', strip_left: false, strip_right: true }),
  "Replace ''": N({ type: 'Replace', pattern: { String: "''" }, content: '"' }),
  'Replace regex spaces': N({ type: 'Replace', pattern: { Regex: ' {2,}' }, content: '▁' }),
  'Replace regex \\s+': N({ type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' }),
  'Replace deletes a': N({ type: 'Replace', pattern: { String: 'a' }, content: '' }),
  'Replace empty matches': N({ type: 'Replace', pattern: { Regex: 'x*' }, content: '-' }),
  'Replace to several chars': N({ type: 'Replace', pattern: { Regex: '[0-9]+' }, content: '<num>' }),
  Prepend: N({ type: 'Prepend', prepend: '▁' }),
  'Prepend+Replace': N({ type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] }),
  'Strip+NFC+Replace': N({ type: 'Sequence', normalizers: [{ type: 'Strip', strip_left: false, strip_right: true }, { type: 'NFC' }, { type: 'Replace', pattern: { Regex: ' {2,}' }, content: '▁' }] }),
  WhitespaceSplit: P({ type: 'WhitespaceSplit' }),
  Whitespace: P({ type: 'Whitespace' }),
  Punctuation: P({ type: 'Punctuation' }),
  'Punctuation Removed': P({ type: 'Punctuation', behavior: 'Removed' }),
  'Punctuation MergedWithPrevious': P({ type: 'Punctuation', behavior: 'MergedWithPrevious' }),
  'Punctuation MergedWithNext': P({ type: 'Punctuation', behavior: 'MergedWithNext' }),
  'Punctuation Contiguous': P({ type: 'Punctuation', behavior: 'Contiguous' }),
  Digits: P({ type: 'Digits', individual_digits: false }),
  'Digits individual': P({ type: 'Digits', individual_digits: true }),
  'Split space': split({ String: ' ' }, 'Removed'),
  'Split \\s+ Isolated': split({ Regex: '\\s+' }, 'Isolated'),
  'Split \\w+ inverted MergedWithNext': split({ Regex: '\\w+' }, 'MergedWithNext', true),
  'Split letters|numbers Contiguous': split({ Regex: '\\p{L}+|\\p{N}+' }, 'Contiguous'),
  'Split empty string': split({ String: '' }, 'Isolated'),
  'Split [^\\s\\w] MergedWithPrevious': split({ Regex: '[^\\s\\w]' }, 'MergedWithPrevious'),
  'Split x* Removed': split({ Regex: 'x*' }, 'Removed'),
  'Split x* inverted Isolated': split({ Regex: 'x*' }, 'Isolated', true),
  'Sequence of splitters': P({ type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'Punctuation' }, { type: 'Digits', individual_digits: true }] }),
  'ALBERT-like': { ...N({ type: 'Sequence', normalizers: [{ type: 'Replace', pattern: { String: '``' }, content: '"' }, { type: 'NFKD' }, { type: 'StripAccents' }, { type: 'Lowercase' }] }), ...P({ type: 'WhitespaceSplit' }) },
  'NFKC+Whitespace': { ...N({ type: 'NFKC' }), ...P({ type: 'Whitespace' }) },
};

const fixed = [
  '', 'Héllo Wörld', 'e\u0301\u0323', 'a\u0323\u0302 a\u0302\u0323', '\u1100\u1161\u11a8 \uac00\u11a8',
  'ﬁ ﬀ ẛ̣ ǅ', 'İstanbul ΣΑΣ ẞ', '  lead and trail  ', '\t\n x \u3000', 'Me llamó', 'ậ…', 'ำน\u0e49ำ3ลำ',
  'x\u0345\u0301y', '𝐀𝐁 ①② ²³ Ⅻ ㎏', '1,234.56', "don't stop-believing!", '‘quoted’ «x» ``ok\'\'', '٣٤٥ ١٢ ৪',
  '\u0f73\u0f75 \u0344', '\u00c5\u212b\u0041\u030a', 'aaa  bbb   c', 'xxaxx', 'x', ' ', '  ', '\u0301abc', 'e\u0301\u0301\u0301',
  '😀 a😀b 👍🏽', 'Ａｂｃ１２３', 'ﾊﾟ ｶﾞ', '\u0915\u093c\u0937', '한국어 ㄱㅏ', 'tab\there', 'a\u200db', '\u0130\u0307',
];

// A seeded generator, so the file is reproducible.
let seed = 12345;
const rand = (n) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};
const pool = [...'aAeEiosxyz019 ,.!?-\'"_', '  ', '\t', '\n', '\u00a0', '\u3000', '\u2028',
  '\u0300', '\u0301', '\u0302', '\u0308', '\u0316', '\u0323', '\u0327', '\u0334', '\u0345', '\u05b0', '\u0951',
  'é', 'ñ', 'Å', 'ǖ', 'ḉ', 'ệ', 'Ω', 'Ω', 'ﬁ', '①', '²', 'Ⅻ', '㎏', 'İ', 'ẞ', 'ſ', 'Σ',
  '가', '각', '\u1100', '\u1161', '\u11a8', 'ｶ', '\uff9e', '٣', '৪', '𝐀', '😀', '𑤵', '\u{11930}', '中', '。', '、', '«', '¿',
  '\u0344', '\u0f73', '\u0f71', '\u0f72', '\u0f80', 'ẛ', '\ufdfa', '㌀', '⑴', '\u07fd', '㋿', '\u{10d40}', '\u1c89', '²', '\u0e49', 'ำ',
  '\u0915', '\u093c', '\u0958', '\u05d9', '\u05b4', '\ufb1d', '\u0622', '\u0653', '\u0654', 'ǅ', 'Ǆ', '\u1e9e', '\u212a', '\u2126'];
const random = [];
const count = Number(process.argv[2] ?? 60);
for (let i = 0; i < count; i++) {
  let s = '';
  const len = 1 + rand(count > 60 ? 24 : 12);
  for (let j = 0; j < len; j++) s += pool[rand(pool.length)];
  random.push(s);
}
const texts = [...fixed, ...random];

const build = (cfg, vocab) => Tokenizer.fromString(JSON.stringify({
  version: '1.0', truncation: null, padding: null, added_tokens: [],
  normalizer: cfg.normalizer ?? null, pre_tokenizer: cfg.pre_tokenizer ?? null,
  post_processor: null, decoder: null,
  model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
}));

// Pass 1: every char of every normalized text.
const chars = new Set();
for (const cfg of Object.values(configs)) {
  const norm = build(cfg, { '[UNK]': 0 }).getNormalizer();
  for (const t of texts) for (const c of norm ? norm.normalizeString(t) : t) chars.add(c);
}
const vocabList = ['[UNK]'];
for (const c of [...chars].sort()) vocabList.push(c, '##' + c);
const vocab = Object.fromEntries(vocabList.map((t, i) => [t, i]));

// Pass 2: the encodings.
const out = { vocab: vocabList, configs: [] };
for (const [name, cfg] of Object.entries(configs)) {
  const tok = build(cfg, vocab);
  const cases = [];
  for (const text of texts) {
    const e = await tok.encode(text);
    cases.push({ text, ids: e.getIds(), offsets: e.getOffsets(), words: e.getWordIds() });
  }
  out.configs.push({ name, ...cfg, cases });
}
console.log(JSON.stringify(out));
