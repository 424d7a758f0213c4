package record

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"qa-shard/internal/errkind"
)

// ErrNoQuestions reports a questions file with nothing to ask.
var ErrNoQuestions = errkind.NewUser("no questions")

// ReadQuestionsFile reads one question per line; lines that are blank or
// start with '#' (after trimming) are comments. Questions are trimmed and
// kept in order; duplicates are left for the Stream to drop.
func ReadQuestionsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("record: questions file: %w", err)
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
			return nil, fmt.Errorf("record: questions file %s line %d: %w", path, n, ErrInvalidUTF8)
		}
		q := strings.TrimSpace(string(line))
		if q == "" || strings.HasPrefix(q, "#") {
			continue
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("record: questions file %s: %w", path, err)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("record: questions file %s: %w (only blank lines and # comments)", path, ErrNoQuestions)
	}
	return qs, nil
}
