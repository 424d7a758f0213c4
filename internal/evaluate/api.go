// Package evaluate scores answers against gold answers the way SQuAD does:
// exact match and token F1 after the official normalisation (lower case,
// ASCII punctuation and the articles a, an, the removed, whitespace
// collapsed), overall and split by how deep in its document each gold
// answer starts, so that what a truncating reader loses shows. It reads
// qa-shard's answer records and gencorpus's gold file; it runs no model.
package evaluate

// Gold is one question's expected answer.
type Gold struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// Token is the index of the answer's first token in its document's
	// tokens (no question, no special tokens).
	Token int `json:"token"`
}

// Key identifies a (document, question) pair.
type Key struct{ ID, Question string }

// Score is exact match and F1 over N questions, in percent.
type Score struct {
	N       int
	EM, F1  float64
	Missing int // questions without an answer record (scored 0)
}

// Report is one reader's scores: overall, and split at Split tokens by
// where the gold answer starts.
type Report struct {
	Split                   int
	Overall, Within, Beyond Score
}
