package modeldir

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"qa-shard/tokenizer/spm"
)

// The SentencePiece converters (transformers' SpmConverter and the four
// subclasses qa-shard converts), each a model file name, the converter's
// vocabulary (pieces and scores, some of them its own), its normalizer,
// pre-tokenizer and template, and the slow class's special tokens.
//
// What every one of them shares (SpmConverter): a Unigram model over the
// vocabulary, or for a BPE-type model file a BPE model whose merges are
// derived from the vocabulary (SentencePieceExtractor), with the model's
// unk piece, fuse_unk and no byte fallback (these converters do not handle
// it: transformers warns and converts without); the model's CONTROL and
// USER_DEFINED pieces added first, in id order, as added tokens that are not
// normalized (CONTROL ones special); Metaspace with prepend_scheme "always"
// (none of the four slow classes has the add_prefix_space or legacy
// attribute SpmConverter looks for, so tokenizer_config.json's values of
// them do not change the conversion, as in transformers).

// spmFamily is one SentencePiece converter.
type spmFamily struct {
	file string // the slow class's vocab file name
	// vocab is the converter's vocabulary and unk id.
	vocab func(m *spm.Model) ([]spm.Scored, int)
	// normalizer and preTokenizer read the slow class's options.
	normalizer   func(m *spm.Model, c *slowConfig) (any, error)
	preTokenizer func(c *slowConfig) (any, error)
	cls, sep     string // the template's literal tokens
	fairseq      bool   // "<s> $A </s> </s> $B </s>", all type ids 0
	defaults     map[string]addedToken
	additional   []string // additional_special_tokens when the files set none
}

func metaspace() map[string]any {
	return map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}
}

func replaceString(pattern, content string) map[string]any {
	return map[string]any{"type": "Replace", "pattern": map[string]any{"String": pattern}, "content": content}
}

func replaceRegex(pattern, content string) map[string]any {
	return map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": pattern}, "content": content}
}

func stripNormalizer(left, right bool) map[string]any {
	return map[string]any{"type": "Strip", "strip_left": left, "strip_right": right}
}

// withCharsmap appends the model's Precompiled normalizer when it has a
// charsmap (a model trained with the identity normalization has none).
func withCharsmap(list []any, m *spm.Model) []any {
	if len(m.Charsmap) == 0 {
		return list
	}
	return append(list, map[string]any{"type": "Precompiled", "precompiled_charsmap": base64.StdEncoding.EncodeToString(m.Charsmap)})
}

func sequence(list []any) map[string]any {
	return map[string]any{"type": "Sequence", "normalizers": list}
}

func modelVocab(m *spm.Model) []spm.Scored {
	out := make([]spm.Scored, len(m.Pieces))
	for i, p := range m.Pieces {
		out[i] = spm.Scored{Piece: p.Piece, Score: float64(p.Score)}
	}
	return out
}

// spmDefault is SpmConverter's own normalizer (XLM-R and CamemBERT keep
// it): the charsmap, trailing space stripped, runs of spaces made one "▁".
func spmDefault(m *spm.Model, _ *slowConfig) (any, error) {
	list := withCharsmap(nil, m)
	return sequence(append(list, stripNormalizer(false, true), replaceRegex(" {2,}", "▁"))), nil
}

func metaspaceOnly(*slowConfig) (any, error) { return metaspace(), nil }

var spmFamilies = map[string]spmFamily{
	// AlbertConverter: the model's pieces, a piece ending in a digit and a
	// comma 100 lower; `` and '' as ", NFKD and accents stripped unless
	// keep_accents, lowercase if do_lower_case (AlbertTokenizer's defaults:
	// true, false); remove_space is read by the slow tokenizer only.
	"AlbertTokenizer": {
		file: "spiece.model",
		vocab: func(m *spm.Model) ([]spm.Scored, int) {
			v := modelVocab(m)
			for i := range v {
				if !spm.NumberComma(v[i].Piece) {
					v[i].Score -= 100
				}
			}
			return v, m.UnkID
		},
		normalizer: func(m *spm.Model, c *slowConfig) (any, error) {
			keep, err := c.boolOpt("keep_accents", false)
			if err != nil {
				return nil, err
			}
			lower, err := c.boolOpt("do_lower_case", true)
			if err != nil {
				return nil, err
			}
			list := []any{replaceString("``", `"`), replaceString("''", `"`)}
			if !keep {
				list = append(list, map[string]any{"type": "NFKD"}, map[string]any{"type": "StripAccents"})
			}
			if lower {
				list = append(list, map[string]any{"type": "Lowercase"})
			}
			list = withCharsmap(list, m)
			return sequence(append(list, replaceRegex(" {2,}", " "))), nil
		},
		preTokenizer: metaspaceOnly,
		cls:          "[CLS]", sep: "[SEP]",
		defaults: map[string]addedToken{
			"bos_token": flags("[CLS]", false), "eos_token": flags("[SEP]", false), "unk_token": flags("<unk>", false),
			"sep_token": flags("[SEP]", false), "pad_token": flags("<pad>", false), "cls_token": flags("[CLS]", false),
			"mask_token": flags("[MASK]", true),
		},
	},
	// XLMRobertaConverter: fairseq's <s> <pad> </s> <unk> as ids 0-3, the
	// model's pieces from its fourth on, <mask> last.
	"XLMRobertaTokenizer": {
		file: "sentencepiece.bpe.model",
		vocab: func(m *spm.Model) ([]spm.Scored, int) {
			v := []spm.Scored{{Piece: "<s>"}, {Piece: "<pad>"}, {Piece: "</s>"}, {Piece: "<unk>"}}
			v = append(v, modelVocab(m)[min(3, len(m.Pieces)):]...)
			return append(v, spm.Scored{Piece: "<mask>"}), 3
		},
		normalizer: spmDefault, preTokenizer: metaspaceOnly,
		cls: "<s>", sep: "</s>", fairseq: true,
		defaults: fairseqDefaults,
	},
	// CamembertConverter: <s>NOTUSED <pad> </s>NOTUSED <unk> <unk>NOTUSED
	// (score -100), the model's pieces from its second on, <mask> last.
	"CamembertTokenizer": {
		file: "sentencepiece.bpe.model",
		vocab: func(m *spm.Model) ([]spm.Scored, int) {
			v := []spm.Scored{{Piece: "<s>NOTUSED"}, {Piece: "<pad>"}, {Piece: "</s>NOTUSED"}, {Piece: "<unk>"}, {Piece: "<unk>NOTUSED", Score: -100}}
			v = append(v, modelVocab(m)[1:]...)
			return append(v, spm.Scored{Piece: "<mask>"}), 3
		},
		normalizer: spmDefault, preTokenizer: metaspaceOnly,
		cls: "<s>", sep: "</s>", fairseq: true,
		defaults:   fairseqDefaults,
		additional: []string{"<s>NOTUSED", "</s>NOTUSED", "<unk>NOTUSED"},
	},
	// DebertaV2Converter (DeBERTa-v2 and v3): the model's pieces;
	// lowercase if do_lower_case (default false), both ends stripped, the
	// charsmap, runs of spaces made one; punctuation isolated before
	// Metaspace if split_by_punct (default false).
	"DebertaV2Tokenizer": {
		file: "spm.model",
		vocab: func(m *spm.Model) ([]spm.Scored, int) {
			return modelVocab(m), m.UnkID
		},
		normalizer: func(m *spm.Model, c *slowConfig) (any, error) {
			lower, err := c.boolOpt("do_lower_case", false)
			if err != nil {
				return nil, err
			}
			var list []any
			if lower {
				list = append(list, map[string]any{"type": "Lowercase"})
			}
			list = withCharsmap(append(list, stripNormalizer(true, true)), m)
			return sequence(append(list, replaceRegex(" {2,}", " "))), nil
		},
		preTokenizer: func(c *slowConfig) (any, error) {
			punct, err := c.boolOpt("split_by_punct", false)
			if err != nil {
				return nil, err
			}
			var list []any
			if punct {
				list = append(list, map[string]any{"type": "Punctuation", "behavior": "Isolated"})
			}
			return map[string]any{"type": "Sequence", "pretokenizers": append(list, metaspace())}, nil
		},
		cls: "[CLS]", sep: "[SEP]",
		defaults: map[string]addedToken{
			"bos_token": flags("[CLS]", false), "eos_token": flags("[SEP]", false), "unk_token": flags("[UNK]", false),
			"sep_token": flags("[SEP]", false), "pad_token": flags("[PAD]", false), "cls_token": flags("[CLS]", false),
			"mask_token": flags("[MASK]", false),
		},
	},
}

// fairseqDefaults are XLM-R's and CamemBERT's special tokens (<mask>
// takes the space before it).
var fairseqDefaults = map[string]addedToken{
	"bos_token": flags("<s>", false), "eos_token": flags("</s>", false), "sep_token": flags("</s>", false),
	"cls_token": flags("<s>", false), "unk_token": flags("<unk>", false), "pad_token": flags("<pad>", false),
	"mask_token": flags("<mask>", true),
}

// spmConverter returns the converter of one SentencePiece family.
func spmConverter(class string) func(dir string, c *slowConfig) ([]byte, []string, error) {
	return func(dir string, c *slowConfig) ([]byte, []string, error) {
		return convertSPM(dir, c, spmFamilies[class])
	}
}

// readSPMFile reads and parses a SentencePiece model file.
func readSPMFile(path string) (*spm.Model, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s is missing (its tokenizer class reads its SentencePiece model from that file; without tokenizer.json qa-shard needs it)", ErrInput, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: read the SentencePiece model: %w", ErrInput, err)
	}
	m, err := spm.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w (replace it with the model's own file, or save the tokenizer with transformers to write a tokenizer.json)", ErrInput, path, err)
	}
	return m, nil
}

func convertSPM(dir string, c *slowConfig, f spmFamily) ([]byte, []string, error) {
	path := filepath.Join(dir, f.file)
	m, err := readSPMFile(path)
	if err != nil {
		return nil, nil, err
	}
	scored, unkID := f.vocab(m)
	v := vocabulary{ids: make(map[string]int, len(scored)), size: len(scored)}
	for i, e := range scored {
		v.ids[e.Piece] = i
	}
	var model map[string]any
	switch m.ModelType {
	case spm.Unigram:
		entries := make([][2]any, len(scored))
		for i, e := range scored {
			entries[i] = [2]any{e.Piece, e.Score}
		}
		model = map[string]any{"type": "Unigram", "unk_id": unkID, "vocab": entries, "byte_fallback": false}
	case spm.BPE:
		merges := spm.Merges(m, scored)
		model = map[string]any{"type": "BPE", "dropout": nil, "unk_token": m.UnkPiece, "continuing_subword_prefix": nil,
			"end_of_word_suffix": nil, "fuse_unk": true, "byte_fallback": false, "ignore_merges": false,
			"vocab": v.ids, "merges": merges}
	default:
		return nil, nil, fmt.Errorf("%w: %s is a SentencePiece %s model; transformers' converters (and qa-shard) convert unigram and bpe models only", ErrInput, path, spm.ModelTypeName(m.ModelType))
	}
	norm, err := f.normalizer(m, c)
	if err != nil {
		return nil, nil, err
	}
	pre, err := f.preTokenizer(c)
	if err != nil {
		return nil, nil, err
	}
	for _, tok := range []string{f.cls, f.sep} {
		if _, ok := v.id(tok); !ok {
			return nil, nil, fmt.Errorf("%w: %s has no %q piece, which %s's template puts around every sequence", ErrInput, path, tok, c.class)
		}
	}
	cls, sep := v.ids[f.cls], v.ids[f.sep]
	var post any
	if f.fairseq {
		post = template([]any{special(f.cls, 0), seq("A", 0), special(f.sep, 0)},
			[]any{special(f.cls, 0), seq("A", 0), special(f.sep, 0), special(f.sep, 0), seq("B", 0), special(f.sep, 0)},
			map[string]int{f.cls: cls, f.sep: sep})
	} else {
		post = template([]any{special(f.cls, 0), seq("A", 0), special(f.sep, 0)},
			[]any{special(f.cls, 0), seq("A", 0), special(f.sep, 0), seq("B", 1), special(f.sep, 1)},
			map[string]int{f.cls: cls, f.sep: sep})
	}
	var added []addedToken
	no := false
	for _, p := range m.Pieces {
		if p.Type == spm.Control || p.Type == spm.UserDefined {
			added = append(added, addedToken{Content: p.Piece, Normalized: &no, Special: p.Type == spm.Control})
		}
	}
	cfg := c
	if len(c.additional) == 0 && len(f.additional) > 0 {
		cc := *c
		for _, s := range f.additional {
			cc.additional = append(cc.additional, addedToken{Content: s})
		}
		cfg = &cc
	}
	p := parts{model: model, normalizer: norm, preTokenizer: pre, postProcessor: post, vocab: v, pre: added}
	raw, err := tokenizerJSON(p, cfg, f.defaults)
	return raw, []string{path}, err
}
