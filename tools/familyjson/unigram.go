package main

import (
	"fmt"

	"qa-shard/tokenizer/spm"
)

// unigramModel is tokenizers' Unigram model section.
func unigramModel(unkID int, vocab []any) *obj {
	return o("type", "Unigram", "unk_id", unkID, "vocab", vocab, "byte_fallback", false)
}

func entry(piece string, score float64) []any { return []any{piece, f64(score)} }

// plainPieces are the model's pieces other than its UNKNOWN and CONTROL ones
// (ALBERT's <pad> <unk> [CLS] [SEP] [MASK]), which the other families'
// layouts replace with their own specials.
func plainPieces(m *spm.Model) []spm.Piece {
	var out []spm.Piece
	for _, p := range m.Pieces {
		if p.Type != spm.Unknown && p.Type != spm.Control {
			out = append(out, p)
		}
	}
	return out
}

func checkUnigram(m *spm.Model) error {
	if m.ModelType != spm.Unigram {
		return fmt.Errorf("sentencepiece model type %d is not unigram (1)", m.ModelType)
	}
	if len(m.Charsmap) == 0 {
		return fmt.Errorf("sentencepiece model has no precompiled_charsmap")
	}
	return nil
}

// albert is albert-base-v2's tokenizer.json (transformers' AlbertConverter
// with do_lower_case=True, keep_accents=False), built from the model itself.
// Scores of pieces that end in a digit and a comma ("1,") are lowered by
// 100, as AlbertConverter does so that "1,000" is not cut after the comma.
// The pre-tokenizer is WhitespaceSplit then Metaspace, as in the hub's
// albert-base-v2 file. The added tokens are the five specials (not the
// model's user-defined symbols, which that file does not list).
func albert(m *spm.Model) (*layout, error) {
	if err := checkUnigram(m); err != nil {
		return nil, err
	}
	vocab := make([]any, len(m.Pieces))
	var added []addedTok
	ids := map[string]int{}
	for id, p := range m.Pieces {
		score := float64(p.Score)
		if !spm.NumberComma(p.Piece) {
			score -= 100
		}
		vocab[id] = entry(p.Piece, score)
		ids[p.Piece] = id
		if p.Type == spm.Unknown || p.Type == spm.Control {
			added = append(added, addedTok{ID: id, Content: p.Piece, Lstrip: p.Piece == "[MASK]", Special: true})
		}
	}
	for _, s := range []string{"<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"} {
		if _, ok := ids[s]; !ok {
			return nil, fmt.Errorf("albert: the model has no %s piece", s)
		}
	}
	norm := seqNormalizer(replaceString("``", `"`), replaceString("''", `"`), simple("NFKD"),
		simple("StripAccents"), simple("Lowercase"), precompiled(m.Charsmap), replaceRegex(" {2,}", " "))
	return &layout{
		Added:        added,
		Normalizer:   norm,
		PreTokenizer: seqPreTokenizer(simple("WhitespaceSplit"), metaspace()),
		PostProc: template("[CLS]:0 $A:0 [SEP]:0", "[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
			map[string]int{"[CLS]": ids["[CLS]"], "[SEP]": ids["[SEP]"]}),
		Decoder: metaspace(),
		Model:   unigramModel(m.UnkID, vocab),
		Roles:   roles{Bos: "[CLS]", Eos: "[SEP]", Unk: "<unk>", Sep: "[SEP]", Pad: "<pad>", Cls: "[CLS]", Mask: "[MASK]"},
		Class:   "AlbertTokenizer",
		Extra:   map[string]any{"do_lower_case": true, "keep_accents": false, "remove_space": true},
	}, nil
}

// fairseqLike builds xlm-roberta-base's layout (XLMRobertaConverter) or
// deberta-v3-base's (DebertaV2Converter) around ALBERT's pieces: the real
// models' vocabularies (250,002 and 128,000 pieces) ship in no npm package,
// so ALBERT's pieces other than its five specials (29,995, its 8
// user-defined symbols among them, here ordinary pieces) and their scores
// (unadjusted: neither converter touches scores) stand in, between each
// family's own specials.
//
//   - xlmr: <s>=0 <pad>=1 </s>=2 <unk>=3 (fairseq's ids), then ALBERT's
//     pieces from 4 on, then <mask> as the last Unigram entry (score 0) and
//     added token with lstrip, as XLM-R's tokenizer.json has it. Normalizer:
//     the Precompiled charsmap alone; pre-tokenizer WhitespaceSplit then
//     Metaspace (the hub's xlm-roberta-base file); template
//     "<s> $A </s> </s> $B </s>", all type ids 0.
//   - deberta: [PAD]=0 [CLS]=1 [SEP]=2 [UNK]=3 (deberta-v3's spm.model
//     order), ALBERT's pieces from 4 on, and [MASK] only as an added token
//     after the last piece (deberta-v3's 128000). do_lower_case=False,
//     split_by_punct=False: normalizer Strip, Precompiled, Replace(" {2,}",
//     " "); pre-tokenizer a Sequence of one Metaspace (no WhitespaceSplit);
//     template "[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1".
func fairseqLike(m *spm.Model, family string) (*layout, error) {
	if err := checkUnigram(m); err != nil {
		return nil, err
	}
	var heads []string
	if family == "xlmr" {
		heads = []string{"<s>", "<pad>", "</s>", "<unk>"}
	} else {
		heads = []string{"[PAD]", "[CLS]", "[SEP]", "[UNK]"}
	}
	var vocab []any
	var added []addedTok
	for id, s := range heads {
		vocab = append(vocab, entry(s, 0))
		added = append(added, addedTok{ID: id, Content: s, Special: true})
	}
	for _, p := range plainPieces(m) {
		vocab = append(vocab, entry(p.Piece, float64(p.Score)))
	}
	if family == "xlmr" {
		maskID := len(vocab)
		vocab = append(vocab, entry("<mask>", 0))
		added = append(added, addedTok{ID: maskID, Content: "<mask>", Lstrip: true, Special: true})
		return &layout{
			Added:        added,
			Normalizer:   precompiled(m.Charsmap),
			PreTokenizer: seqPreTokenizer(simple("WhitespaceSplit"), metaspace()),
			PostProc:     template("<s> $A </s>", "<s> $A </s> </s> $B </s>", map[string]int{"<s>": 0, "</s>": 2}),
			Decoder:      metaspace(),
			Model:        unigramModel(3, vocab),
			Roles:        roles{Bos: "<s>", Eos: "</s>", Unk: "<unk>", Sep: "</s>", Pad: "<pad>", Cls: "<s>", Mask: "<mask>"},
			Class:        "XLMRobertaTokenizer",
		}, nil
	}
	added = append(added, addedTok{ID: len(vocab), Content: "[MASK]", Special: true})
	return &layout{
		Added:        added,
		Normalizer:   seqNormalizer(strip(true, true), precompiled(m.Charsmap), replaceRegex(" {2,}", " ")),
		PreTokenizer: seqPreTokenizer(metaspace()),
		PostProc: template("[CLS]:0 $A:0 [SEP]:0", "[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
			map[string]int{"[CLS]": 1, "[SEP]": 2}),
		Decoder: metaspace(),
		Model:   unigramModel(3, vocab),
		Roles:   roles{Bos: "[CLS]", Eos: "[SEP]", Unk: "[UNK]", Sep: "[SEP]", Pad: "[PAD]", Cls: "[CLS]", Mask: "[MASK]"},
		Class:   "DebertaV2Tokenizer",
		Extra:   map[string]any{"do_lower_case": false, "split_by_punct": false, "vocab_type": "spm"},
	}, nil
}
