// Package format says how a corpus or an answers file is stored (JSONL,
// gzip or zstd JSONL, Parquet, and for input a SQuAD JSON dataset), from
// its name or its first bytes.
//
// It is the one place that maps extensions and magic bytes to a format:
// input reads by it, output writes by it, eval reads answers by it and a
// rank's file name keeps the extension it names.
package format

import (
	"bytes"
	"path/filepath"
	"strings"
)

// Format is how a file is stored.
type Format uint8

const (
	JSONL   Format = iota // plain text, one record per line (any other name)
	Gzip                  // .gz: gzip-compressed JSONL (any number of members)
	Zstd                  // .zst or .zstd: zstd-compressed JSONL (any number of frames)
	Parquet               // .parquet: a Parquet file, or a folder of parts
	// SQuAD is a SQuAD v1.1 or v2.0 dataset: one JSON document (input
	// only; a .json file is one when its content says so, see IsSQuAD).
	SQuAD
)

func (f Format) String() string {
	return [...]string{"JSONL", "gzip JSONL", "zstd JSONL", "Parquet", "SQuAD JSON"}[f]
}

// Of is the format a path's extension says (case does not matter):
// JSONL for any name that says none of the others.
func Of(path string) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".gz":
		return Gzip
	case ".zst", ".zstd":
		return Zstd
	case ".parquet":
		return Parquet
	}
	return JSONL
}

// Magic bytes at the start of a file of each format but JSONL.
var (
	gzipMagic    = []byte{0x1f, 0x8b}
	zstdMagic    = []byte{0x28, 0xb5, 0x2f, 0xfd}
	parquetMagic = []byte("PAR1")
)

// MagicSize is how many first bytes Sniff needs.
const MagicSize = 4

// Sniff is the format a file's first bytes say, if they say one (JSONL
// has no magic: ok is false and the format JSONL).
func Sniff(b []byte) (f Format, ok bool) {
	switch {
	case bytes.HasPrefix(b, gzipMagic):
		return Gzip, true
	case bytes.HasPrefix(b, zstdMagic):
		return Zstd, true
	case bytes.HasPrefix(b, parquetMagic):
		return Parquet, true
	}
	return JSONL, false
}

// IsInput reports whether a folder of inputs contributes a file of this
// name: it ends (case aside) in .jsonl or .ndjson, either maybe followed
// by .gz, .zst or .zstd, or in .parquet.
func IsInput(name string) bool {
	name = strings.ToLower(name)
	for _, c := range []string{".gz", ".zst", ".zstd"} {
		name = strings.TrimSuffix(name, c)
	}
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".ndjson") || strings.HasSuffix(name, ".parquet")
}

// Ext is the end of path's name that says its format, which a name
// derived from it (a rank's file) keeps at its end: the last extension,
// or the last two for a compressed file (answers.jsonl.gz); "" for none.
func Ext(path string) string {
	ext := filepath.Ext(path)
	if ext == "." || strings.ContainsRune(ext, filepath.Separator) {
		return ""
	}
	switch ext {
	case ".gz", ".zst", ".zstd":
		if inner := filepath.Ext(strings.TrimSuffix(path, ext)); inner != "" && inner != "." && !strings.ContainsRune(inner, filepath.Separator) {
			return inner + ext
		}
	}
	return ext
}
