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

// Span is the documents [First, End) a process answers and Bytes, the sum
// of their Document.Bytes: the total of the work progress counts.
type Span struct {
	First, End int64
	Bytes      int64
}

// Block is the documents that rank r answers, found in one streaming pass
// over the input: for a single process, every line (End is the line count;
// 0 for standard input, which is not counted, and Bytes then unknown: 0),
// for a rank of several, its ByteBlock.
func Block(path string, r Rank) (Span, error) {
	if r.World <= 1 {
		if path == "-" {
			return Span{}, nil
		}
		s, err := byteSpan(path, Rank{Rank: 0, World: 1})
		if err != nil {
			return Span{}, fmt.Errorf("counting lines of %s: %w", path, err)
		}
		return s, nil
	}
	if path == "-" {
		return Span{}, fmt.Errorf("%w: ranks need --input FILE: standard input cannot be split", ErrRank)
	}
	s, err := byteSpan(path, r)
	if err != nil {
		return Span{}, fmt.Errorf("splitting %s among ranks: %w", path, err)
	}
	return s, nil
}
