import { Tokenizer } from 'tokenizers';
const tok = Tokenizer.fromFile(`/tmp/fx/out/roberta/tokenizer.json`);
const ctx = Array.from({ length: 200 }, (_, i) => 'w' + i).join(' ');
for (const [max, stride] of [[20, 4], [30, 0], [64, 16], [100, 16]]) {
  tok.setTruncation(max, { stride, strategy: 'OnlySecond' });
  const e = await tok.encode('Who is it?', ctx);
  const ws = [e, ...e.getOverflowing()];
  console.log(max, stride, 'windows', ws.length, ws.map((w) => { const t = w.getTokens(); const s = w.getSequenceIds(); const b = t.filter((_, i) => s[i] === 1); return b[0] + '..' + b[b.length - 1] + '(' + b.length + ')'; }).join(' '));
  // manual: no truncation, truncate B, postProcess
  tok.disableTruncation();
  const q = await tok.encode('Who is it?', null, { addSpecialTokens: false });
  const c = await tok.encode(ctx, null, { addSpecialTokens: false });
  c.truncate(max - q.getLength() - 4, stride);
  const m = tok.postProcess(q, c, true);
  const mw = [m, ...m.getOverflowing()];
  console.log('  manual windows', mw.length, mw.map((w) => { const t = w.getTokens(); const s = w.getSequenceIds(); const b = t.filter((_, i) => s[i] === 1); return b[0] + '..' + b[b.length - 1] + '(' + b.length + ')'; }).join(' '));
}
