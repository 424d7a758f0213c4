package chars

import "unicode"

// Character classes exactly as Hugging Face tokenizers defines them for
// BERT's normalizer and pre-tokenizer. Three of them come from
// the Rust crate unicode_categories, whose Unicode tables are older than Go's
// (HF keeps chars assigned since, such as U+0890, and does not treat newer
// punctuation such as U+061D as punctuation), so they are generated tables
// (char_classes_tables.go); the rest match Go's package unicode on every
// code point, as TestCodepointParity checks.

// IsCleanControl is what clean_text drops: NUL, U+FFFD and the "other"
// chars Cc (except tab, newline and carriage return, which are whitespace),
// Cf and Co. Unassigned code points are kept.
func IsCleanControl(r rune) bool { return unicode.Is(hfCleanDrop, r) }

// IsWhitespace is Rust's char::is_whitespace, the White_Space property.
func IsWhitespace(r rune) bool { return unicode.Is(unicode.White_Space, r) }

// IsBertPunc is HF's is_bert_punc: Rust's ASCII punctuation (every printable
// ASCII char that is not a letter, digit or space, so "$+<=>^`|~" too) or a
// Unicode P* char.
func IsBertPunc(r rune) bool { return unicode.Is(hfPunct, r) }

// IsMarkNonspacing is the Mn category, the only one strip_accents removes.
func IsMarkNonspacing(r rune) bool { return unicode.Is(hfMn, r) }

// IsChineseChar lists the CJK ideograph blocks BERT isolates as words, the
// same ranges as HF's is_chinese_char (not all of CJK: no kana, no hangul).
func IsChineseChar(r rune) bool {
	switch {
	case 0x4E00 <= r && r <= 0x9FFF,
		0x3400 <= r && r <= 0x4DBF,
		0x20000 <= r && r <= 0x2A6DF,
		0x2A700 <= r && r <= 0x2B73F,
		0x2B740 <= r && r <= 0x2B81F,
		0x2B920 <= r && r <= 0x2CEAF,
		0xF900 <= r && r <= 0xFAFF,
		0x2F800 <= r && r <= 0x2FA1F:
		return true
	}
	return false
}

// ToLowerFull is Rust's char::to_lowercase: the simple mapping plus the one
// unconditional multi-char mapping of SpecialCasing.txt, İ -> i + U+0307.
// Like HF, it is applied char by char, so there is no final-sigma context.
// hfLower adds the mappings of Unicode versions newer than Go's tables.
func ToLowerFull(r rune, dst []rune) []rune {
	if r == 0x130 {
		return append(dst, 'i', 0x307)
	}
	if l, ok := hfLower[r]; ok {
		return append(dst, l)
	}
	return append(dst, unicode.ToLower(r))
}
