//go:build parity

package tokenizer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"qa-shard/tokenizer/internal/normalizers"
	"qa-shard/tokenizer/internal/pretokenizers"
	"qa-shard/tokenizer/internal/stage"
)

// normProbe is one entry of testdata/normprobes.json: a normalizer or a
// pre-tokenizer, and the text it gets for each code point ({c} the code
// point, {nfd} and {nfkd} its NFD and NFKD as ICU writes them).
type normProbe struct {
	Name         string          `json:"name"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Input        string          `json:"input"`

	norm    stage.Normalizer
	pre     stage.PreTokenizer
	derived bool
}

func loadNormProbes(t *testing.T) []normProbe {
	raw, err := os.ReadFile("testdata/normprobes.json")
	if err != nil {
		t.Fatal(err)
	}
	var probes []normProbe
	if err := json.Unmarshal(raw, &probes); err != nil {
		t.Fatal(err)
	}
	for i := range probes {
		p := &probes[i]
		if p.Normalizer != nil {
			p.norm, err = normalizers.Parse(p.Normalizer)
		} else {
			p.pre, err = pretokenizers.Parse(p.PreTokenizer)
		}
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		p.derived = strings.Contains(p.Input, "{nfd}") || strings.Contains(p.Input, "{nfkd}")
	}
	return probes
}

// run is what the probe gives for input, as JSON spelled like Go spells it.
func (p *normProbe) run(input string) string {
	if p.norm != nil {
		n := stage.NewNormalized(input, 0)
		p.norm.Normalize(&n)
		return quote(n.S)
	}
	type word = [2]any
	out := []word{}
	for _, w := range p.pre.Split(stage.NewNormalized(input, 0), nil) {
		if w.S == "" {
			continue
		}
		o := w.Original(0, len(w.S))
		out = append(out, word{w.S, [2]int32{o.Start, o.End}})
	}
	return quote(out)
}

// TestNormalizerCodepointParity compares every probe of normprobes.json on
// every Unicode scalar value with Hugging Face, from the file
// testdata/normcodepoints.mjs writes (see the commands at its top). Built
// only with -tags parity; it then requires QA_SHARD_PARITY_NORM.
func TestNormalizerCodepointParity(t *testing.T) {
	path := os.Getenv("QA_SHARD_PARITY_NORM")
	if path == "" {
		t.Fatal("set QA_SHARD_PARITY_NORM to the output of testdata/normcodepoints.mjs")
	}
	probes := loadNormProbes(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	lines := 0
	bad := make([]int, len(probes))
	for sc.Scan() {
		lines++
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != len(probes)+1 {
			t.Fatalf("line %d: %d columns, want %d", lines, len(cols), len(probes)+1)
		}
		cp, err := strconv.Atoi(cols[0])
		if err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		c := string(rune(cp))
		for i := range probes {
			p := &probes[i]
			var got, want string
			if p.derived {
				var pair [2]string
				if err := json.Unmarshal([]byte(cols[i+1]), &pair); err != nil {
					t.Fatalf("line %d: %v", lines, err)
				}
				got, want = p.run(pair[0]), quote(pair[1])
			} else {
				input := strings.ReplaceAll(p.Input, "{c}", c)
				got, want = p.run(input), requote(t, cols[i+1])
			}
			if got != want {
				bad[i]++
				if bad[i] <= 10 {
					t.Errorf("%s U+%04X: got %s, want %s", p.Name, cp, got, want)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines < 0x10F800 {
		t.Fatalf("only %d code points in %s", lines, path)
	}
	for i, p := range probes {
		fmt.Printf("%-28s %d of %d code points differ\n", p.Name, bad[i], lines)
	}
}
