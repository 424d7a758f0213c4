//go:build parity

package tokenizer

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Byte-level BPE (the roberta family) against Hugging Face on every code
// point and on several MB of real text, from the files
// testdata/family-codepoints.mjs and testdata/family-corpus.mjs write for
// build/tokenizers/roberta/tokenizer.json (see the commands at their top):
//
//	QA_SHARD_TOKENIZERS_DIR=$PWD/build/tokenizers \
//	QA_SHARD_ROBERTA_CODEPOINTS=$PWD/build/tokenizers/roberta/codepoints.tsv \
//	QA_SHARD_ROBERTA_CORPUS=$PWD/build/tokenizers/roberta/corpus.jsonl \
//	  go test -tags parity ./tokenizer -run 'TestRoberta(Codepoints|Corpus)' -v

func parityFile(t *testing.T, env string) *bufio.Scanner {
	t.Helper()
	path := os.Getenv(env)
	if path == "" {
		t.Fatalf("set %s (see bytelevel_parity_test.go)", env)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return sc
}

// idsOffsets renders an encoding as family-codepoints.mjs does: ids
// comma-separated, offsets "start-end" comma-separated.
func idsOffsets(tk *Tokenizer, text string) (string, string) {
	e := tk.Encode(text)
	ids := make([]string, len(e.IDs))
	offs := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		ids[i] = strconv.Itoa(int(id))
		offs[i] = fmt.Sprintf("%d-%d", e.Offsets[i].Start, e.Offsets[i].End)
	}
	return strings.Join(ids, ","), strings.Join(offs, ",")
}

func TestRobertaCodepoints(t *testing.T) {
	tk := familyTokenizer(t, "roberta")
	sc := parityFile(t, "QA_SHARD_ROBERTA_CODEPOINTS")
	lines, bad := 0, 0
	for sc.Scan() {
		lines++
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 5 {
			t.Fatalf("line %d: %d columns, want 5", lines, len(cols))
		}
		cp, err := strconv.Atoi(cols[0])
		if err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		c := string(rune(cp))
		var got []string
		for _, text := range []string{c, "a" + c + "b"} {
			ids, offs := idsOffsets(tk, text)
			got = append(got, ids, offs)
		}
		if !slices.Equal(got, cols[1:]) {
			bad++
			if bad <= 20 {
				t.Errorf("U+%04X: got %q, want %q", cp, got, cols[1:])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines < 0x10F800 {
		t.Fatalf("only %d code points", lines)
	}
	fmt.Printf("roberta code points: %d checked, %d differ\n", lines, bad)
}

func TestRobertaCorpus(t *testing.T) {
	tk := familyTokenizer(t, "roberta")
	sc := parityFile(t, "QA_SHARD_ROBERTA_CORPUS")
	docs, tokens, size, bad := checkCorpus(t, tk, sc)
	if docs < 1000 {
		t.Fatalf("only %d documents", docs)
	}
	fmt.Printf("roberta corpus: %d documents, %.1f MB, %d tokens, %d mismatching documents\n", docs, float64(size)/1e6, tokens, bad)
}
