package shard

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrInput marks an input path that cannot be used: missing, unreadable,
// or a folder.
var ErrInput = errors.New("input")

// OpenInput opens the corpus; "-" is standard input.
func OpenInput(path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(bufio.NewReaderSize(os.Stdin, 1<<20)), nil
	}
	if err := CheckInput(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot open --input: %w", ErrInput, err)
	}
	return f, nil
}

// CheckInput refuses an input path that is missing or a folder.
func CheckInput(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("%w: cannot open --input: %w", ErrInput, err)
	case st.IsDir():
		return fmt.Errorf("%w: --input %s is a folder: give one JSONL file (or - for standard input)", ErrInput, path)
	}
	return nil
}

// Block is the documents [first, end) that rank r answers, in one
// streaming pass over the input: for a single process, every line (end is
// the line count, for progress; 0 for standard input, which is not
// counted), for a rank of several, its ByteBlock.
func Block(path string, r Rank) (first, end int64, err error) {
	if r.World <= 1 {
		if path == "-" {
			return 0, 0, nil
		}
		total, err := CountLines(path)
		if err != nil {
			return 0, 0, fmt.Errorf("counting lines of %s: %w", path, err)
		}
		return 0, total, nil
	}
	if path == "-" {
		return 0, 0, fmt.Errorf("%w: ranks need --input FILE: standard input cannot be split", ErrRank)
	}
	first, end, err = ByteBlock(path, r)
	if err != nil {
		return 0, 0, fmt.Errorf("splitting %s among ranks: %w", path, err)
	}
	return first, end, nil
}
