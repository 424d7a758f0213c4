package main

import (
	"encoding/base64"
	"slices"
	"strings"
)

// addedTok is one entry of tokenizer.json's added_tokens (and of
// tokenizer_config.json's added_tokens_decoder).
type addedTok struct {
	ID         int
	Content    string
	Lstrip     bool
	Normalized bool
	Special    bool
}

func (a addedTok) json() *obj {
	return o("id", a.ID, "content", a.Content, "single_word", false, "lstrip", a.Lstrip,
		"rstrip", false, "normalized", a.Normalized, "special", a.Special)
}

// roles names the special tokens of a family, as transformers' slow
// tokenizer class declares them (empty: the family has none).
type roles struct {
	Bos, Eos, Unk, Sep, Pad, Cls, Mask string
}

// layout is everything written for one family.
type layout struct {
	Added        []addedTok
	Normalizer   any
	PreTokenizer any
	PostProc     any
	Decoder      any
	Model        *obj
	Roles        roles
	Class        string         // tokenizer_class
	Extra        map[string]any // family-specific tokenizer_config.json keys
}

// tokenizerJSON is the tokenizers 0.23 serialization (Tokenizer::save):
// fields in this order, added tokens by id.
func (l *layout) tokenizerJSON() *obj {
	added := make([]any, len(l.Added))
	for i, a := range l.Added {
		added[i] = a.json()
	}
	return o("version", "1.0", "truncation", nil, "padding", nil, "added_tokens", added,
		"normalizer", l.Normalizer, "pre_tokenizer", l.PreTokenizer, "post_processor", l.PostProc,
		"decoder", l.Decoder, "model", l.Model)
}

// Building blocks, each as tokenizers 0.23 serializes it.

func seqNormalizer(ns ...any) *obj { return o("type", "Sequence", "normalizers", ns) }

func replaceString(pattern, content string) *obj {
	return o("type", "Replace", "pattern", o("String", pattern), "content", content)
}

func replaceRegex(pattern, content string) *obj {
	return o("type", "Replace", "pattern", o("Regex", pattern), "content", content)
}

func simple(typ string) *obj { return o("type", typ) }

func strip(left, right bool) *obj {
	return o("type", "Strip", "strip_left", left, "strip_right", right)
}

func precompiled(charsmap []byte) *obj {
	return o("type", "Precompiled", "precompiled_charsmap", base64.StdEncoding.EncodeToString(charsmap))
}

func seqPreTokenizer(ps ...any) *obj { return o("type", "Sequence", "pretokenizers", ps) }

// metaspace is the pre-tokenizer and the decoder of the SentencePiece
// families: "▁" for spaces, prepended to every word (prepend_scheme
// "always": transformers' _get_prepend_scheme for add_prefix_space=True and
// a legacy tokenizer), splitting on it.
func metaspace() *obj {
	return o("type", "Metaspace", "replacement", "▁", "prepend_scheme", "always", "split", true)
}

func byteLevel(addPrefixSpace bool) *obj {
	return o("type", "ByteLevel", "add_prefix_space", addPrefixSpace, "trim_offsets", true, "use_regex", true)
}

// template is a TemplateProcessing written from a transformers template
// string such as "[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1" ($A/$B without :N
// have type id 0, as tokenizers parses them).
func template(single, pair string, specials map[string]int) *obj {
	pieces := func(t string) []any {
		var out []any
		for _, f := range strings.Fields(t) {
			name, ty, _ := strings.Cut(f, ":")
			typeID := 0
			if ty == "1" {
				typeID = 1
			}
			if strings.HasPrefix(name, "$") {
				out = append(out, o("Sequence", o("id", strings.TrimPrefix(name, "$"), "type_id", typeID)))
			} else {
				out = append(out, o("SpecialToken", o("id", name, "type_id", typeID)))
			}
		}
		return out
	}
	names := make([]string, 0, len(specials))
	for n := range specials {
		names = append(names, n)
	}
	slices.Sort(names) // tokenizers writes the special tokens map sorted by key
	sp := &obj{}
	for _, n := range names {
		sp.set(n, o("id", n, "ids", []any{specials[n]}, "tokens", []any{n}))
	}
	return o("type", "TemplateProcessing", "single", pieces(single), "pair", pieces(pair), "special_tokens", sp)
}
