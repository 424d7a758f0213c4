import { Tokenizer } from 'tokenizers';
for (const f of ['roberta', 'albert', 'xlmr']) {
  const tok = Tokenizer.fromFile(`/tmp/fx/out/${f}/tokenizer.json`);
  tok.setTruncation(20, { stride: 4, strategy: 'OnlySecond' });
  const ctx = Array.from({ length: 40 }, (_, i) => 'w' + i).join(' ');
  const e = await tok.encode('Who is it?', ctx);
  const show = (x, d) => { console.log(' '.repeat(d) + x.getTokens().join(' '), '| seq', JSON.stringify(x.getSequenceIds()), 'n', x.getLength(), 'offs', JSON.stringify(x.getOffsets().slice(0,8))); };
  console.log(f);
  show(e, 0);
  const walk = (x, d) => { for (const o of x.getOverflowing()) { show(o, d); if (d < 6) walk(o, d + 2); } };
  walk(e, 2);
}
