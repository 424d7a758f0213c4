package shard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// ErrNoQuestions reports a questions file with nothing to ask.
var ErrNoQuestions = errors.New("no questions")

// ReadQuestionsFile reads one question per line; lines that are blank or
// start with '#' (after trimming) are comments. Questions are trimmed and
// kept in order; duplicates are left for the Reader to drop.
func ReadQuestionsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("shard: questions file: %w", err)
	}
	defer f.Close()

	var qs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20) // a question is short; a megabyte means a wrong file
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if n == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if !utf8.Valid(line) {
			return nil, fmt.Errorf("shard: questions file %s line %d: %w", path, n, ErrInvalidUTF8)
		}
		q := strings.TrimSpace(string(line))
		if q == "" || strings.HasPrefix(q, "#") {
			continue
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("shard: questions file %s: %w", path, err)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("shard: questions file %s: %w (only blank lines and # comments)", path, ErrNoQuestions)
	}
	return qs, nil
}

// CountLines counts the lines of path that a Reader would number, that is
// the non-blank ones, so progress can show a total before the run starts.
// It reads in large chunks and finds line ends with bytes.IndexByte, which
// is vectorised; a record line is known non-blank from its first byte, so
// the cost is close to that of reading the file.
func CountLines(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("shard: counting lines: %w", err)
	}
	defer f.Close()
	return countLines(f)
}

func countLines(r io.Reader) (int64, error) {
	var count int64
	err := scanLines(r, func(_, _ int64) { count++ })
	return count, err
}

// scanLines calls visit with the byte offsets at which each line a Reader
// would number (the non-blank ones) starts and ends (after its "\n"), so
// end-start is the line's Document.Bytes.
func scanLines(r io.Reader, visit func(start, end int64)) error {
	buf := make([]byte, 1<<20)
	var pos, start int64 // offset of the chunk, start of the current line
	text := false        // the current line has a non-whitespace byte
	first := true
	for {
		n, err := io.ReadFull(r, buf)
		chunk := buf[:n]
		off := pos
		pos += int64(n)
		if first && n > 0 {
			first = false
			if bytes.HasPrefix(chunk, utf8BOM) {
				chunk, off = chunk[len(utf8BOM):], off+int64(len(utf8BOM))
			}
		}
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			end := i
			if i < 0 {
				end = len(chunk)
			}
			text = text || !isBlank(chunk[:end])
			if i < 0 {
				break
			}
			if text {
				visit(start, off+int64(i+1))
			}
			text = false
			chunk, off = chunk[i+1:], off+int64(i+1)
			start = off
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			if text { // a last line without '\n'
				visit(start, pos)
			}
			return nil
		default:
			return fmt.Errorf("shard: counting lines: %w", err)
		}
	}
}
