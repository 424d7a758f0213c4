//go:build parity

package tokenizer

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every family (byte-level BPE for RoBERTa; Precompiled or NFKD
// normalizers, Metaspace and Unigram for the others) against Hugging Face
// on every code point and on several MB of real text, from the files
// testdata/family-codepoints.mjs, testdata/family-corpus.mjs and
// testdata/precompiled-graphemes.mjs write beside each family's
// tokenizer.json (make tokenizer-parity runs them all):
//
//	QA_SHARD_TOKENIZERS_DIR=$PWD/build/tokenizers \
//	  go test -tags parity ./tokenizer -run 'TestFamily(Codepoints|Corpus|Graphemes)' -v

// familyParityFile opens QA_SHARD_TOKENIZERS_DIR/<family>/<name>.
func familyParityFile(t *testing.T, family, name string) *bufio.Scanner {
	t.Helper()
	path := filepath.Join(os.Getenv("QA_SHARD_TOKENIZERS_DIR"), family, name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return sc
}

// idsOffsets writes an encoding as the node scripts do: ids
// comma-separated, offsets "start-end" comma-separated.
func idsOffsets(tk *Tokenizer, text string) []string {
	e := tk.Encode(text)
	ids := make([]string, len(e.IDs))
	offs := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		ids[i] = strconv.Itoa(int(id))
		offs[i] = fmt.Sprintf("%d-%d", e.Offsets[i].Start, e.Offsets[i].End)
	}
	return []string{strings.Join(ids, ","), strings.Join(offs, ",")}
}

// familyTSV checks every line "key<TAB>cols..." of a reference file
// against texts(key): each text gives two columns (ids, offsets).
func familyTSV(t *testing.T, family, name string, min int, texts func(cp int) []string) {
	tk := familyTokenizer(t, family)
	sc := familyParityFile(t, family, name)
	lines, bad := 0, 0
	for sc.Scan() {
		lines++
		cols := strings.Split(sc.Text(), "\t")
		cp, err := strconv.Atoi(cols[0])
		if err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		var got []string
		for _, text := range texts(cp) {
			got = append(got, idsOffsets(tk, text)...)
		}
		if !slices.Equal(got, cols[1:]) {
			bad++
			if bad <= 20 {
				t.Errorf("%s U+%04X: got %q, want %q", family, cp, got, cols[1:])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines < min {
		t.Fatalf("only %d lines", lines)
	}
	fmt.Printf("%s %s: %d checked, %d differ\n", family, name, lines, bad)
}

// TestFamilyCodepoints: c alone and "a"+c+"b", for every scalar value.
func TestFamilyCodepoints(t *testing.T) {
	for _, fam := range families {
		t.Run(fam, func(t *testing.T) {
			familyTSV(t, fam, "codepoints.tsv", 0x10F800, func(cp int) []string {
				c := string(rune(cp))
				return []string{c, "a" + c + "b"}
			})
		})
	}
}

// TestFamilyCorpus: real documents, their ids, word ids and offsets.
func TestFamilyCorpus(t *testing.T) {
	for _, fam := range families {
		t.Run(fam, func(t *testing.T) {
			tk := familyTokenizer(t, fam)
			sc := familyParityFile(t, fam, "corpus.jsonl")
			docs, tokens, size, bad := checkCorpus(t, tk, sc)
			if docs < 1000 || size < 3<<20 {
				t.Fatalf("only %d documents, %d bytes", docs, size)
			}
			fmt.Printf("%s corpus: %d documents, %d bytes, %d tokens, %d differ\n", fam, docs, size, tokens, bad)
		})
	}
}

// TestFamilyGraphemes: "ª"+c+"b", c+"ª"+"b" and c+U+0301+"b" for every
// scalar value (precompiled-graphemes.mjs, xlmr only: its Precompiled sees
// the raw text).
func TestFamilyGraphemes(t *testing.T) {
	familyTSV(t, "xlmr", "graphemes.tsv", 0x10F800, func(cp int) []string {
		c := string(rune(cp))
		return []string{"\u00aa" + c + "b", c + "\u00aab", c + "\u0301b"}
	})
}
