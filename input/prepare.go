package input

import (
	"fmt"
	"strings"

	"qa-shard/internal/record"
	"qa-shard/shard"
)

// Prepare finds the files args name, rank r's share of them and the run's
// schema (filled into rec, which it returns), and refuses outputs that are
// or would become inputs (CheckOutputs) and a run with nothing to ask
// (checkAsks). It reads no document: at most the
// first record, a few bytes of each file it owns and the footers of its
// Parquet files.
func Prepare(args []string, r shard.Rank, rec record.Options, idType string, outputs ...Output) (*Plan, record.Options, error) {
	files, err := Find(args)
	if err != nil {
		return nil, rec, err
	}
	plan, err := Split(files, r)
	if err != nil {
		return nil, rec, err
	}
	f, err := firstOf(plan.Files, rec, idType)
	if err != nil {
		return nil, rec, err
	}
	if err := checkAsks(f, rec); err != nil {
		return nil, rec, err
	}
	if err := checkFields(f, rec.Fields); err != nil {
		return nil, rec, err
	}
	rec.Schema = f.schema(idType)
	return plan, rec, checkOutputs(args, files, outputs...)
}

// checkAsks refuses a run with nothing to ask, before the model is
// opened: no question from the flags (rec.Questions: --question,
// --questions-file), and the first record asks none of its own. The first
// record decides because it is all that is read before the run: a later
// record without a question becomes an error record, as any bad record
// does; an input without records has nothing to ask.
func checkAsks(f first, rec record.Options) error {
	if len(rec.Questions) > 0 || !f.found || f.asks {
		return nil
	}
	names := record.NewMapper(rec).QuestionFields()
	return fmt.Errorf("%w: no --question or --questions-file was given, and the first record (%s) asks none of its own (%s): nothing to ask; give --question \"...\" (repeatable) or --questions-file FILE, or a question in each record",
		record.ErrNoQuestion, f.name, quoteAll(names))
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, " or ")
}
