package record

import "slices"

// The names of the output columns, in the one place they are defined:
// the Parquet answers (output) build their row type from AnswerColumns,
// the JSONL Writer writes no key outside them (writer_test.go), and the
// logits' stored row has exactly LogitsColumns (output/logits's test).
// A kept field (Fields.Keep) is written beside these columns under its
// own name, so it may not take one of them (Reserved).

// IDColumn is the first column of every record: the document's id.
const IDColumn = "id"

// AnswerColumns are the columns of an answer or error record after the
// id and the kept fields, in the order Parquet writes them; "answers"
// (the top-k list) only with top-k > 1.
var AnswerColumns = []string{
	"question", "question_id", "answer", "score", "start", "end", "span_logit", "null_logit", "windows",
	"file", "offset", "row", "error", "answers",
}

// LogitsColumns are the columns of a logits row (LogitsRow) before the
// kept fields, in the order the logits files hold them.
var LogitsColumns = []string{
	IDColumn, "file", "offset", "row", "question_index", "question", "window", "input_ids", "sequence_ids", "word_ids",
	"offset_start", "offset_end", "start_logits", "end_logits",
}

// Reserved reports whether name is a column of an answer, error or
// logits record: a kept field of that name would clash with it (two keys
// of one name in JSONL, two columns in Parquet, or a value of another
// type in the column).
func Reserved(name string) bool {
	return name == IDColumn || slices.Contains(AnswerColumns, name) || slices.Contains(LogitsColumns, name)
}

// ReservedColumns lists every name Reserved refuses, each once, in the
// order of the records: for messages.
func ReservedColumns() []string {
	names := []string{IDColumn}
	for _, c := range append(slices.Clone(AnswerColumns), LogitsColumns...) {
		if !slices.Contains(names, c) {
			names = append(names, c)
		}
	}
	return names
}
