package normalizers

import (
	"encoding/json"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// Bert is BertNormalizer in the general pipeline (the BERT fast
// path, package bertfast, fuses it with BertPreTokenizer and WordPiece). Every
// step of it works char by char; a CJK ideograph gets a space on either
// side, all three aligned to it, as do_handle_chinese_chars aligns them.
type Bert struct{ Config BertConfig }

func (b Bert) Normalize(n *stage.Normalized) {
	n.MapRunes(func(r rune, dst []rune) []rune {
		var iso bool
		var chars [8]rune
		out, iso := b.Config.Apply(r, chars[:0])
		if iso {
			dst = append(dst, ' ')
			dst = append(dst, out...)
			return append(dst, ' ')
		}
		return append(dst, out...)
	})
}

func parseBertNormalizer(raw json.RawMessage) (BertConfig, error) {
	var c struct {
		Type         string `json:"type"`
		CleanText    *bool  `json:"clean_text"`
		ChineseChars *bool  `json:"handle_chinese_chars"`
		StripAccents *bool  `json:"strip_accents"`
		Lowercase    *bool  `json:"lowercase"`
	}
	if err := hfjson.Strict(raw, &c, "BertNormalizer"); err != nil {
		return BertConfig{}, err
	}
	n := BertConfig{CleanText: hfjson.OrTrue(c.CleanText), ChineseChars: hfjson.OrTrue(c.ChineseChars), Lowercase: hfjson.OrTrue(c.Lowercase)}
	// strip_accents null means "whatever lowercase is".
	n.StripAccents = n.Lowercase
	if c.StripAccents != nil {
		n.StripAccents = *c.StripAccents
	}
	return n, nil
}

// BertConfig is BertNormalizer's configuration. Every step of it works char
// by char, so its whole effect on one original char can be computed once and
// looked up (see charTable); each normalized char then aligns to exactly the
// one original char it came from, which is how HF's alignments end up too.
type BertConfig struct {
	CleanText, ChineseChars, StripAccents, Lowercase bool
}

// Apply appends the normalized form of one original char to dst and reports
// whether the char is a CJK ideograph, which handle_chinese_chars surrounds
// with spaces (so it becomes a word of its own).
func (n BertConfig) Apply(r rune, dst []rune) ([]rune, bool) {
	if n.CleanText {
		if chars.IsCleanControl(r) {
			return dst, false
		}
		if chars.IsWhitespace(r) {
			r = ' '
		}
	}
	iso := n.ChineseChars && chars.IsChineseChar(r)
	// HF order: strip accents (NFD, then drop Mn) before lowercasing, so
	// "İ" loses its dot as U+0307 before lowercase could add one back.
	var buf [4]rune
	kept := buf[:0]
	if n.StripAccents {
		var dec [4 * utf8.UTFMax]byte
		d := NFD(r, dec[:0])
		for len(d) > 0 {
			c, size := utf8.DecodeRune(d)
			d = d[size:]
			if !chars.IsMarkNonspacing(c) {
				kept = append(kept, c)
			}
		}
	} else {
		kept = append(kept, r)
	}
	for _, c := range kept {
		if n.Lowercase {
			dst = chars.ToLowerFull(c, dst)
		} else {
			dst = append(dst, c)
		}
	}
	return dst, iso
}

// NFD appends the canonical decomposition of r as HF computes it.
func NFD(r rune, dst []byte) []byte {
	if s, ok := chars.NFD[r]; ok {
		return append(dst, s...)
	}
	var enc [utf8.UTFMax]byte
	return norm.NFD.Append(dst, enc[:utf8.EncodeRune(enc[:], r)]...)
}
