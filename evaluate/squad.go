package evaluate

import (
	"strings"
	"unicode"

	"qa-shard/qa"
)

// asciiPunct is Python's string.punctuation, which the official SQuAD
// script removes; other punctuation stays.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// normalize is the official SQuAD normalize_answer: lower case (Python's
// str.lower, qa.PyLower), remove punctuation (string.punctuation), remove
// the articles a/an/the as whole words, collapse whitespace (str.split).
// Unicode's tables are Go's, which may differ from a Python's for
// recently added characters.
func normalize(s string) string {
	s = qa.PyLower(s)
	s = strings.Map(func(r rune) rune {
		if r < 128 && strings.ContainsRune(asciiPunct, r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(withoutArticles(s), " ")
}

// withoutArticles is re.sub(r'\b(a|an|the)\b', ' ', s) followed by
// str.split(): words are runs of Python's \w (letters, numbers, '_') and
// the article must be a whole such run between word boundaries.
func withoutArticles(s string) []string {
	var out []string
	for _, field := range strings.FieldsFunc(s, pySpace) {
		var b strings.Builder
		start := 0
		rs := []rune(field)
		for i := 0; i <= len(rs); i++ {
			if i < len(rs) && isWord(rs[i]) {
				continue
			}
			// rs[start:i] is a run of word characters.
			if w := string(rs[start:i]); w == "a" || w == "an" || w == "the" {
				b.WriteString(" ")
			} else {
				b.WriteString(w)
			}
			if i < len(rs) {
				b.WriteRune(rs[i])
			}
			start = i + 1
		}
		out = append(out, strings.Fields(b.String())...)
	}
	return out
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// pySpace is Python's str.isspace: Go's unicode.IsSpace and the
// separators U+001C to U+001F.
func pySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// exactMatch is 1 when the normalised texts are equal.
func exactMatch(pred, gold string) float64 {
	if normalize(pred) == normalize(gold) {
		return 1
	}
	return 0
}

// f1Score is the harmonic mean of token precision and recall between the
// normalised texts, tokens counted as collections.Counter intersects them;
// when either is empty it is 1 if both are, else 0 (as the SQuAD 2.0
// script scores no-answer).
func f1Score(pred, gold string) float64 {
	p, g := strings.Fields(normalize(pred)), strings.Fields(normalize(gold))
	if len(p) == 0 || len(g) == 0 {
		if len(p) == len(g) {
			return 1
		}
		return 0
	}
	counts := map[string]int{}
	for _, t := range g {
		counts[t]++
	}
	same := 0
	for _, t := range p {
		if counts[t] > 0 {
			counts[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	precision := float64(same) / float64(len(p))
	recall := float64(same) / float64(len(g))
	return 2 * precision * recall / (precision + recall)
}

// bestOf is the official script's score of one prediction: the maximum over
// the gold answers that normalise to some text, or over [""] when none do
// (a question without an answer). It returns exact match and F1.
func bestOf(pred string, gold []string) (em, f1 float64) {
	var texts []string
	for _, g := range gold {
		if normalize(g) != "" {
			texts = append(texts, g)
		}
	}
	if len(texts) == 0 {
		texts = []string{""}
	}
	for _, g := range texts {
		em, f1 = max(em, exactMatch(pred, g)), max(f1, f1Score(pred, g))
	}
	return em, f1
}
