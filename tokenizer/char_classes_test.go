//go:build parity

package tokenizer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"qa-shard/tokenizer/internal/bertfast"
	"qa-shard/tokenizer/internal/normalizers"
)

// quote renders v as JSON the way Go does, so that both sides of a
// comparison are spelled alike.
func quote(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// requote re-encodes a JSON value written by codepoints.mjs.
func requote(t *testing.T, col string) string {
	var v any
	if err := json.Unmarshal([]byte(col), &v); err != nil {
		t.Fatalf("%q: %v", col, err)
	}
	return quote(v)
}

// TestCodepointParity compares the treatment of every Unicode scalar value
// with Hugging Face's, from the file testdata/codepoints.mjs writes (see the
// commands at its top). It needs that generated file, so it is built only
// with -tags parity and then requires QA_SHARD_PARITY_CODEPOINTS; the
// committed golden file carries the interesting chars into ordinary runs.
func TestCodepointParity(t *testing.T) {
	path := os.Getenv("QA_SHARD_PARITY_CODEPOINTS")
	if path == "" {
		t.Fatal("set QA_SHARD_PARITY_CODEPOINTS to the output of testdata/codepoints.mjs")
	}
	tk := bertTokenizer(t)
	if !tk.fast.Normalizer().CleanText || !tk.fast.Normalizer().StripAccents || !tk.fast.Normalizer().Lowercase || !tk.fast.Normalizer().ChineseChars {
		t.Fatal("the reference was made with bert-base-uncased's normalizer")
	}
	configs := []normalizers.BertConfig{{CleanText: true}, {StripAccents: true}, {Lowercase: true}}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	lines, bad := 0, 0
	for sc.Scan() {
		lines++
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 8 {
			t.Fatalf("line %d: %d columns, want 8", lines, len(cols))
		}
		cp, err := strconv.Atoi(cols[0])
		if err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		r := rune(cp)
		var want, got []string
		for _, col := range cols[1:] {
			want = append(want, requote(t, col))
		}
		for _, n := range configs {
			out, _ := n.Apply(r, nil)
			got = append(got, quote(string(out)))
		}
		got = append(got, quote(string(normalizers.NFD(r, nil))))
		def, iso := tk.fast.Normalizer().Apply(r, nil)
		if iso {
			def = append(append([]rune{' '}, def...), ' ')
		}
		got = append(got, quote(string(def)))
		// Words of "x"+c+"y" before normalization: the pre-tokenizer alone.
		var raw []string
		for _, c := range "x" + string(r) + "y" {
			switch bertfast.PreTokClass(c) {
			case bertfast.ClsSpace:
				raw = append(raw, "")
			case bertfast.ClsPunct:
				raw = append(raw, string(c), "")
			default:
				if len(raw) == 0 {
					raw = append(raw, "")
				}
				raw[len(raw)-1] += string(c)
			}
		}
		raw = slices.DeleteFunc(raw, func(s string) bool { return s == "" })
		got = append(got, quote(raw))
		var words []string
		tk.fast.Encode("x"+string(r)+"y", &words)
		got = append(got, quote(words))
		if !slices.Equal(got, want) {
			bad++
			if bad <= 40 {
				t.Errorf("U+%04X: got %s, want %s", r, got, want)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines < 0x10F800 {
		t.Fatalf("only %d code points in %s", lines, path)
	}
	fmt.Printf("code points: %d checked, %d differ\n", lines, bad)
}
