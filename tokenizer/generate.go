package tokenizer

// The generated files of this package (in tokenizer/internal/chars) and
// where they come from. Their
// inputs are sweeps under build/ that `make generate` writes first (see
// mk/generate.mk), then it runs these lines:
//
//   - char_classes_tables.go: the character classes Hugging Face tokenizers
//     uses for BERT, read off testdata/codepoints.mjs's sweep of every code
//     point;
//   - unicode_tables.go: where its Unicode tables disagree with Go's, read
//     off testdata/normcodepoints.mjs's sweep;
//   - graphemes_table.go: the grapheme cluster classes of the Rust crate
//     unicode-segmentation 1.13, from its src/tables.rs (named by
//     QA_SHARD_GCB_TABLES; no npm package ships it).

//go:generate go run ../tools/hftables -in ../build/bert-tokenizer/codepoints.tsv -o internal/chars/char_classes_tables.go
//go:generate go run ../tools/normtables -in ../build/normcodepoints.tsv -probes testdata/normprobes.json -o internal/chars/unicode_tables.go
//go:generate go test -count=1 -tags gcbgen -run TestGenerateGCB ./internal/chars
