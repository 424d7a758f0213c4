package tokenizer

import "encoding/json"

// bertNormalizer is BertNormalizer in the general pipeline (the BERT fast
// path in encode.go fuses it with BertPreTokenizer and WordPiece). Every
// step of it works char by char; a CJK ideograph gets a space on either
// side, all three aligned to it, as do_handle_chinese_chars aligns them.
type bertNormalizer struct{ n bertConfig }

func (b bertNormalizer) normalize(n *normalized) {
	n.mapRunes(func(r rune, dst []rune) []rune {
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
	if err := strict(raw, &c, "BertNormalizer"); err != nil {
		return bertConfig{}, err
	}
	n := bertConfig{cleanText: orTrue(c.CleanText), chineseChars: orTrue(c.ChineseChars), lowercase: orTrue(c.Lowercase)}
	// strip_accents null means "whatever lowercase is".
	n.stripAccents = n.lowercase
	if c.StripAccents != nil {
		n.stripAccents = *c.StripAccents
	}
	return n, nil
}

// bertPreTokenizer is BertPreTokenizer: split on whitespace (removed),
// then isolate every punctuation char.
type bertPreTokenizer struct{}

func (bertPreTokenizer) split(n normalized, dst []normalized) []normalized {
	var words []normalized
	words = splitChars(n, isWhitespace, removed, words)
	for _, w := range words {
		dst = splitChars(w, isBertPunc, isolated, dst)
	}
	return dst
}
