package tokenizer

import (
	"encoding/json"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// bertNormalizer is BertNormalizer in the general pipeline (the BERT fast
// path in bert_fast_path.go fuses it with BertPreTokenizer and WordPiece). Every
// step of it works char by char; a CJK ideograph gets a space on either
// side, all three aligned to it, as do_handle_chinese_chars aligns them.
type bertNormalizer struct{ n bertConfig }

func (b bertNormalizer) Normalize(n *stage.Normalized) {
	n.MapRunes(func(r rune, dst []rune) []rune {
		var iso bool
		var chars [8]rune
		out, iso := b.n.apply(r, chars[:0])
		if iso {
			dst = append(dst, ' ')
			dst = append(dst, out...)
			return append(dst, ' ')
		}
		return append(dst, out...)
	})
}

func parseBertNormalizer(raw json.RawMessage) (bertConfig, error) {
	var c struct {
		Type         string `json:"type"`
		CleanText    *bool  `json:"clean_text"`
		ChineseChars *bool  `json:"handle_chinese_chars"`
		StripAccents *bool  `json:"strip_accents"`
		Lowercase    *bool  `json:"lowercase"`
	}
	if err := hfjson.Strict(raw, &c, "BertNormalizer"); err != nil {
		return bertConfig{}, err
	}
	n := bertConfig{cleanText: hfjson.OrTrue(c.CleanText), chineseChars: hfjson.OrTrue(c.ChineseChars), lowercase: hfjson.OrTrue(c.Lowercase)}
	// strip_accents null means "whatever lowercase is".
	n.stripAccents = n.lowercase
	if c.StripAccents != nil {
		n.stripAccents = *c.StripAccents
	}
	return n, nil
}

// bertConfig is BertNormalizer's configuration. Every step of it works char
// by char, so its whole effect on one original char can be computed once and
// looked up (see charTable); each normalized char then aligns to exactly the
// one original char it came from, which is how HF's alignments end up too.
type bertConfig struct {
	cleanText, chineseChars, stripAccents, lowercase bool
}

// apply appends the normalized form of one original char to dst and reports
// whether the char is a CJK ideograph, which handle_chinese_chars surrounds
// with spaces (so it becomes a word of its own).
func (n bertConfig) apply(r rune, dst []rune) ([]rune, bool) {
	if n.cleanText {
		if chars.IsCleanControl(r) {
			return dst, false
		}
		if chars.IsWhitespace(r) {
			r = ' '
		}
	}
	iso := n.chineseChars && chars.IsChineseChar(r)
	// HF order: strip accents (NFD, then drop Mn) before lowercasing, so
	// "İ" loses its dot as U+0307 before lowercase could add one back.
	var buf [4]rune
	kept := buf[:0]
	if n.stripAccents {
		var dec [4 * utf8.UTFMax]byte
		d := nfd(r, dec[:0])
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
		if n.lowercase {
			dst = chars.ToLowerFull(c, dst)
		} else {
			dst = append(dst, c)
		}
	}
	return dst, iso
}

// nfd appends the canonical decomposition of r as HF computes it.
func nfd(r rune, dst []byte) []byte {
	if s, ok := chars.NFD[r]; ok {
		return append(dst, s...)
	}
	var enc [utf8.UTFMax]byte
	return norm.NFD.Append(dst, enc[:utf8.EncodeRune(enc[:], r)]...)
}
