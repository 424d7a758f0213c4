import { Tokenizer } from 'tokenizers';
const tok = Tokenizer.fromFile(`/tmp/fx/out/roberta/tokenizer.json`);
for (const s of ['😀a b', 'é😀 x']) { const e = await tok.encode(s, null, { addSpecialTokens: false }); console.log(s, e.getTokens(), JSON.stringify(e.getOffsets())); }
const al = Tokenizer.fromFile(`/tmp/fx/out/albert/tokenizer.json`);
tok.setTruncation(64, { stride: 16, strategy: 'OnlySecond' });
try { const e = await tok.encode('q '.repeat(62), 'some context here that is long enough '.repeat(5)); console.log('long q ok', e.getLength(), e.getOverflowing().length); } catch (err) { console.log('long q error', String(err)); }
try { const e = await tok.encode('q '.repeat(50), 'some context here that is long enough '.repeat(5)); console.log('q 50 ok', e.getLength(), e.getOverflowing().length); } catch (err) { console.log('q50 error', String(err)); }
try { const e = await tok.encode('q', ''); console.log('empty ctx ok', e.getTokens()); } catch (err) { console.log('empty ctx error', String(err)); }
try { const e = await al.encode('', ''); console.log('albert empty both ok', e.getTokens()); } catch (err) { console.log('empty both error', String(err)); }
