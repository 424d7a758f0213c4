package main

import (
	"fmt"
	"math/rand/v2"
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

// jaQuestions are allQuestions in Japanese (-lang ja), in the same order.
// Each starts with a different word, so that train.py's accuracy by a
// question's first token tells them apart.
var jaQuestions = []question{
	{"founder", "この会社を設立したのは誰ですか？"},
	{"hq", "本社はどこにありますか？"},
	{"year", "設立されたのは何年ですか？"},
	{"city", "どの都市で設立されましたか？"},
	{"products", "何を製造していますか？"},
	{"employees", "従業員は何人ですか？"},
}

// languages are the values of -lang: each one's questions, and the
// document writer.
var languages = map[string]struct {
	questions []question
	document  func(r *rand.Rand, words int) (string, []fact)
}{
	"en": {allQuestions, document},
	"ja": {jaQuestions, documentJa},
}

// selectQuestions parses -questions: "all" or a comma-separated list of
// kinds, in the language lang.
func selectQuestions(spec, lang string) ([]question, error) {
	l, ok := languages[lang]
	if !ok {
		return nil, fmt.Errorf("-lang %q: want en or ja", lang)
	}
	if spec == "all" {
		return l.questions, nil
	}
	var out []question
	for _, k := range strings.Split(spec, ",") {
		k = strings.TrimSpace(k)
		found := false
		for _, q := range l.questions {
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
