// Package chars is what Hugging Face tokenizers (and the Rust crates it
// builds on) says of single characters where Go's tables disagree: the
// BERT character classes, full lowercasing, the Unicode tables of its
// normalizers and pre-tokenizers, the Onigmo classes of its regexes and
// grapheme cluster boundaries. The tables are generated (see
// tokenizer/generate.go).
package chars
