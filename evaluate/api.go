// Package evaluate scores answers against gold answers as SQuAD's official
// script does, and one reader's answers against another's. Exact match
// and token F1 follow evaluate-v2.0.py: its normalisation (Python's lower
// case, ASCII punctuation and the articles a, an, the removed, whitespace
// collapsed), the maximum over a question's gold answers, the split into
// questions with and without an answer, and the best no-answer threshold
// over the answers' null odds. Where the gold knows how deep in its document each answer starts
// (gencorpus's token), the scores are also split there, so that what a
// truncating reader loses shows. It reads qa-shard's answer records and
// gold in SQuAD JSON, Hugging Face datasets' columns or gencorpus's lines;
// it runs no model.
package evaluate

// Gold is one question's expected answers.
type Gold struct {
	// ID identifies the question: with ByQuestion the question's own id
	// (SQuAD's), matched against an answer record's question_id (or its id
	// when it has none); otherwise the document's id, matched with the
	// question's text.
	ID       string
	Question string
	// Answers are the gold texts; none for a question without an answer
	// (SQuAD 2.0), which only "" answers right.
	Answers []string
	// Token is the index of the first answer's first token in its
	// document's tokens (no question, no special tokens); -1 when unknown.
	Token int
}

// HasAnswer is the official script's bool(qa['answers']).
func (g Gold) HasAnswer() bool { return len(g.Answers) > 0 }

// GoldSet is a gold file's questions and how answers are matched to them.
type GoldSet struct {
	Questions []Gold
	// ByQuestion: answers are matched by question id (SQuAD JSON and the
	// datasets' columns), not by (document id, question).
	ByQuestion bool
	// Kind names the file's format in the report ("SQuAD v2.0 JSON", ...).
	Kind string
}

// Positions says whether every question's token depth is known, so the
// scores can be split by it.
func (s GoldSet) Positions() bool {
	for _, g := range s.Questions {
		if g.Token < 0 {
			return false
		}
	}
	return len(s.Questions) > 0
}

// Key identifies a (document, question) pair.
type Key struct{ ID, Question string }

// Prediction is one answer record as eval reads it.
type Prediction struct {
	Answer     string
	Score      float64
	Start, End int
	// QuestionID is the record's question_id ("" when it has none).
	QuestionID string
	// SpanLogit and NullLogit are the record's raw logits; Logits says
	// whether it had them (error records, older outputs and other readers
	// do not).
	SpanLogit, NullLogit float64
	Logits               bool
	// Error: the record is an error record (the document or question
	// could not be answered); it scores as a wrong answer.
	Error bool
}

// Score is exact match and F1 over N questions, in percent.
type Score struct {
	N       int
	EM, F1  float64
	Missing int // questions without an answer record (scored 0)
}

// Best is the official script's best no-answer threshold: the exact match
// and F1 reached when an answer is replaced by "" wherever its null odds
// (null_logit - span_logit) exceed the threshold, at the best threshold
// for each.
type Best struct {
	EM, EMThresh float64
	F1, F1Thresh float64
}

// Report is one reader's scores: overall; split at Split tokens by where
// the gold answer starts (when the gold knows, Positions); split into
// questions with and without an answer; and, when some question has no
// answer and every answer had logits, the best no-answer thresholds.
type Report struct {
	Split                   int
	Positions               bool
	Overall, Within, Beyond Score
	HasAns, NoAns           Score
	// Best is nil when the gold has no question without an answer, or an
	// answer record lacks the logits it needs (NoLogits counts those).
	Best     *Best
	NoLogits int
	// Errors counts the gold's questions whose record is an error record,
	// scored as wrong answers.
	Errors int
	// Unscored counts the answer records of questions the gold does not
	// hold (not scored).
	Unscored int
}
