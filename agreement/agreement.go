// Package agreement is the answer check (--check-input) of a model's copy
// in another arithmetic (quantize's int8, export's float16): what the copy
// costs on the user's own documents. It answers a sample of them with the
// float32 model and with the copy, compares the answers (the copy's exact
// match and F1 against float32's, identical answers, score drift) and
// judges them by a threshold, by default MLPerf's rule for BERT (99% of
// float32's F1).
package agreement

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"qa-shard/evaluate"
	"qa-shard/input"
	"qa-shard/internal/errkind"
	"qa-shard/internal/record"
	"qa-shard/shard"
)

// defaultMinF1 is the default threshold: MLPerf's inference rule for BERT
// asks a quantized model for 99% of float32's F1 on SQuAD v1.1. Here
// float32's own answers are the gold, against which float32 scores 100,
// so the copy passes with an F1 of at least 99 against them.
const defaultMinF1 = 99.0

// defaultDocs is how many documents the sample holds by default.
const defaultDocs = 100

// ErrBelow marks a copy whose answers agree with float32's below the
// threshold: the check completed and says so, like a run with more error
// records than it tolerates (exit 3).
var ErrBelow = errkind.NewRecords("the copy's answers agree with float32's below the threshold")

// Options say which documents to sample and how to judge.
type Options struct {
	// Inputs are --input's arguments: files, folders, globs of any input
	// format. The sample is their first Docs documents, in input order.
	Inputs []string
	Docs   int
	// Questions (then those of QuestionsFile) are asked of every
	// document, before its own; Fields say where records keep their id,
	// context and questions.
	Questions     []string
	QuestionsFile string
	Fields        record.Fields
	// MinF1 is the threshold, in percent (DefaultMinF1 when 0).
	MinF1 float64
	// Dir holds the sample and both models' answers; "" is a temporary
	// folder, removed at the end.
	Dir string
}

// Runner answers the JSON lines corpus input with the model in folder model
// into the answers file output, as `qa-shard --model model --input input
// --output output` does.
type Runner func(model, input, output string) error

// Result is the check's outcome.
type Result struct {
	// Documents were sampled; Skipped of the records read were bad (they
	// would be error records in both runs) and are not in the sample.
	Documents, Skipped int
	evaluate.Agreement
	MinF1 float64
	// Copy names the copy's arithmetic in messages ("int8", "fp16").
	Copy string
}

// Pass says whether the copy meets the threshold.
func (r Result) Pass() bool { return r.F1 >= r.MinF1 }

// Compare samples the documents, answers them with the float32 model and
// with the copy (its arithmetic named copyName) and compares: an error of
// kind Records (ErrBelow) when the copy falls below the threshold, the
// result either way.
func Compare(o Options, float32Model, copyModel, copyName string, run Runner) (Result, error) {
	res := Result{MinF1: o.MinF1, Copy: copyName}
	if res.MinF1 == 0 {
		res.MinF1 = defaultMinF1
	}
	if o.Docs <= 0 {
		o.Docs = defaultDocs
	}
	if o.Dir == "" {
		dir, err := os.MkdirTemp("", "qa-shard-check-")
		if err != nil {
			return res, err
		}
		defer os.RemoveAll(dir)
		o.Dir = dir
	}
	sample := filepath.Join(o.Dir, "sample.jsonl")
	var err error
	if res.Documents, res.Skipped, err = writeSample(o, sample); err != nil {
		return res, err
	}
	answers := map[string]map[evaluate.Key]evaluate.Prediction{}
	for _, m := range []struct{ name, model string }{{"float32", float32Model}, {"copy", copyModel}} {
		name, model := m.name, m.model
		out := filepath.Join(o.Dir, name+".jsonl")
		if err := run(model, sample, out); err != nil {
			return res, fmt.Errorf("answering the sample with the %s model: %w", map[string]string{"float32": "float32", "copy": copyName}[name], err)
		}
		if answers[name], err = evaluate.ReadAnswers(out); err != nil {
			return res, err
		}
	}
	res.Agreement = evaluate.Agree(answers["float32"], answers["copy"])
	if !res.Pass() {
		return res, fmt.Errorf("%w: the %s copy's F1 %.2f against float32's answers on %d questions of %d documents, below %.2f (--check-min-f1)",
			ErrBelow, copyName, res.F1, res.Pairs, res.Documents, res.MinF1)
	}
	return res, nil
}

// writeSample writes the first o.Docs good documents of the inputs as
// JSON lines with their questions (the global ones folded in), and counts
// the bad records it passed over.
func writeSample(o Options, path string) (docs, skipped int, err error) {
	questions := o.Questions
	if o.QuestionsFile != "" {
		qs, err := record.ReadQuestionsFile(o.QuestionsFile)
		if err != nil {
			return 0, 0, fmt.Errorf("%w: --questions-file: %w", input.ErrInput, err)
		}
		questions = append(questions, qs...)
	}
	rec := record.Options{Questions: questions, Fields: o.Fields}
	plan, rec, err := input.Prepare(o.Inputs, shard.Rank{World: 1}, rec, "", input.Output{Flag: "the check's sample", Path: path})
	if err != nil {
		return 0, 0, fmt.Errorf("--check-input: %w", err)
	}
	r, err := plan.Open(rec, nil, 0)
	if err != nil {
		return 0, 0, fmt.Errorf("--check-input: %w", err)
	}
	defer r.Close()
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for docs < o.Docs {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return docs, skipped, fmt.Errorf("--check-input: %w", err)
		}
		if d.Err != nil {
			skipped++
			continue
		}
		line := struct {
			ID        json.RawMessage `json:"id"`
			Context   string          `json:"context"`
			Questions []string        `json:"questions"`
		}{d.ID, d.Context, d.Questions}
		if err := enc.Encode(line); err != nil {
			return docs, skipped, err
		}
		docs++
	}
	if docs == 0 {
		return 0, skipped, fmt.Errorf("%w: --check-input holds no document to check with (%d bad records)", input.ErrInput, skipped)
	}
	return docs, skipped, f.Close()
}

// Log says what the check found, pass or not.
func (r Result) Log(log *zap.Logger) {
	verdict := "passes"
	if !r.Pass() {
		verdict = "FAILS"
	}
	log.Info(fmt.Sprintf("answer check on %d documents (%d questions): the %s copy's answers against float32's: exact match %.2f, F1 %.2f (%s --check-min-f1 %.2f), %d identical (text and offsets), score drift mean %.4f, max %.4f",
		r.Documents, r.Pairs, r.Copy, r.EM, r.F1, verdict, r.MinF1, r.Identical, r.MeanDrift, r.MaxDrift),
		zap.Int("check_documents", r.Documents), zap.Int("check_skipped_records", r.Skipped), zap.Int("check_questions", r.Pairs),
		zap.Float64("check_exact_match", r.EM), zap.Float64("check_f1", r.F1), zap.Float64("check_min_f1", r.MinF1), zap.Bool("check_pass", r.Pass()),
		zap.Int("check_identical", r.Identical), zap.Int("check_missing", r.Missing),
		zap.Float64("check_score_drift_mean", r.MeanDrift), zap.Float64("check_score_drift_max", r.MaxDrift))
}
