package main

import (
	"fmt"
	"strings"
)

// question is one question the facts answer, keyed by the fact's kind.
type question struct{ kind, text string }

// allQuestions are in the order gold answers are written.
var allQuestions = []question{
	{"founder", "Who founded the company?"},
	{"hq", "Where is the headquarters?"},
	{"year", "When was the company founded?"},
	{"city", "In which city was the company founded?"},
	{"products", "What does the company make?"},
	{"employees", "How many people does the company employ?"},
}

// selectQuestions parses -questions: "all" or a comma-separated list of kinds.
func selectQuestions(spec string) ([]question, error) {
	if spec == "all" {
		return allQuestions, nil
	}
	var out []question
	for _, k := range strings.Split(spec, ",") {
		k = strings.TrimSpace(k)
		found := false
		for _, q := range allQuestions {
			if q.kind == k {
				out, found = append(out, q), true
			}
		}
		if !found {
			return nil, fmt.Errorf("-questions: unknown kind %q (want all or a list of %s)", k, kinds())
		}
	}
	return out, nil
}

func kinds() string {
	var ks []string
	for _, q := range allQuestions {
		ks = append(ks, q.kind)
	}
	return strings.Join(ks, ",")
}
