package evaluate

import (
	"math"
	"testing"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"The Cat":                       "cat",
		"  A  quick,\tbrown fox!\n":     "quick brown fox",
		"Anna and the banana":           "anna and banana", // articles only as whole words
		"open-source compilers":         "opensource compilers",
		"«the» end":                     "« » end", // non-ASCII punctuation stays, and bounds words
		"éa a":                          "éa",      // é is a word character: no boundary before a
		"The_the":                       "thethe",  // _ is punctuation: removed before articles
		"São Paulo":                     "são paulo",
		"":                              "",
		"an":                            "",
		"1,000,000 people (approx.) AN": "1000000 people approx",
		"İstanbul":                      "i\u0307stanbul", // Python's lower: i + combining dot
		"ΟΔΟΣ":                          "οδος",           // final sigma
		"foo\x1cbar\x1f baz\u3000":      "foo bar baz",    // str.split's whitespace
		"A.B.C.":                        "abc",
		"the theater, a banana":         "theater banana",
		"(the) 10th-11th":               "10th11th",
		"don't":                         "dont",
	} {
		if got := normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExactMatchAndF1(t *testing.T) {
	cases := []struct {
		pred, gold string
		em, f1     float64
	}{
		{"the Lisbon.", "Lisbon", 1, 1},
		{"Lovelace", "Ada Lovelace", 0, 2.0 / 3},
		{"Ada Lovelace in Lisbon", "Ada Lovelace", 0, 2 * 0.5 * 1 / 1.5},
		{"Turing Turing", "Alan Turing", 0, 0.5}, // each gold token matches once
		{"Nairobi", "Osaka", 0, 0},
		{"", "Osaka", 0, 0},
		{"", "", 1, 1},
		{"the", "a", 1, 1}, // both normalise to nothing
	}
	for _, c := range cases {
		em, f1 := exactMatch(c.pred, c.gold), f1Score(c.pred, c.gold)
		if em != c.em || math.Abs(f1-c.f1) > 1e-12 {
			t.Errorf("(%q, %q): EM %v F1 %v, want %v %v", c.pred, c.gold, em, f1, c.em, c.f1)
		}
	}
}
