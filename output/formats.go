package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"qa-shard/journal"
)

// Format is how the answers are stored, chosen by --output's extension.
type Format uint8

const (
	JSONL   Format = iota // .jsonl (and anything else)
	Gzip                  // .gz: a gzip member per checkpoint
	Zstd                  // .zst or .zstd: a zstd frame per checkpoint
	Parquet               // .parquet: a folder of parts, one per checkpoint
)

// FormatOf is the format --output's name asks for.
func FormatOf(path string) Format {
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

// openSink opens the answers for writing: fresh when bytes < 0, else
// resumed after bytes (a file the journal already cut to that length) or
// after parts sealed parts (a Parquet folder).
func openSink(o Options, bytes int64, parts int) (sink, error) {
	format := FormatOf(o.Answers)
	if format == Parquet {
		return openParts(o, parts)
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if bytes >= 0 {
		flags = os.O_WRONLY | os.O_APPEND | os.O_CREATE
	}
	f, err := o.open(o.Answers, flags)
	if err != nil {
		return nil, err
	}
	return newStream(f, format, max(bytes, 0), o.Keep), nil
}

// remove deletes an output and its journal (for --overwrite): a file, or
// the parts of a Parquet folder and then the folder if nothing else is
// in it (a folder is never removed with content qa-shard did not write).
func remove(path string) error {
	if err := journal.Remove(path); err == nil || FormatOf(path) != Parquet {
		return err
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if isPart(e.Name()) {
			if err := os.Remove(filepath.Join(path, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s holds files qa-shard did not write; remove them or choose another --output: %w", path, err)
	}
	return nil
}
