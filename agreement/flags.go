package agreement

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"qa-shard/internal/cli"
	"qa-shard/internal/record"
)

// Request is what the answer check was asked on the command line.
type Request struct {
	Inputs                               []string
	Docs                                 int
	Questions                            []string
	QuestionsFile                        string
	IDField, ContextField, QuestionField string
	MinF1                                float64
	Devices                              string
}

// checkFlags are the flags that only mean something with --check-input.
var checkFlags = []string{"check-docs", "question", "questions-file", "id-field", "context-field", "question-field", "check-min-f1", "check-devices"}

// AddFlags gives a subcommand the answer check's flags.
func (r *Request) AddFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&r.Inputs, "check-input", nil, "check the copy's answers against float32's on these documents (files, folders, globs, as --input; repeatable)")
	fs.IntVar(&r.Docs, "check-docs", defaultDocs, "how many documents of --check-input to check with, the first in input order")
	fs.StringArrayVar(&r.Questions, "question", nil, "question asked of every checked document, before its own (repeatable)")
	fs.StringVar(&r.QuestionsFile, "questions-file", "", "file of questions asked of every checked document, one per line")
	fs.StringVar(&r.IDField, "id-field", "", `field holding a --check-input record's id (default "id")`)
	fs.StringVar(&r.ContextField, "context-field", "", `field holding a --check-input record's text (default "context")`)
	fs.StringVar(&r.QuestionField, "question-field", "", `field holding a --check-input record's question(s) (default "question" and "questions")`)
	fs.Float64Var(&r.MinF1, "check-min-f1", defaultMinF1, "the copy passes when its F1 against float32's answers is at least this (percent; MLPerf's BERT rule: 99% of float32's)")
	fs.StringVar(&r.Devices, "check-devices", "cpu", "devices that answer the checked documents, as run's --devices")
}

// Validate refuses the check's flags without --check-input, and values
// out of range.
func (r *Request) Validate(fs *pflag.FlagSet) error {
	changed := false
	for _, name := range checkFlags {
		changed = changed || fs.Changed(name)
	}
	switch {
	case len(r.Inputs) == 0 && changed:
		return fmt.Errorf("%w: the answer check's flags (--check-docs, --question, --check-min-f1, ...) need --check-input FILE, the documents to check with", cli.ErrUsage)
	case r.Docs < 1:
		return fmt.Errorf("%w: --check-docs must be at least 1", cli.ErrUsage)
	case r.MinF1 <= 0 || r.MinF1 > 100:
		return fmt.Errorf("%w: --check-min-f1 is a percentage in (0, 100]", cli.ErrUsage)
	}
	return nil
}

// Run checks the copy's answers (its arithmetic named copyName) against
// the float32 model's on the requested documents, both answered by runCmd
// (the run subcommand) with extra flags after the check's own, and logs
// the result: nil, ErrBelow (exit 3) or why the check could not run.
func (r Request) Run(float32Model, copyModel, copyName string, runCmd func([]string) error, extra []string, log *zap.Logger) error {
	run := func(model, input, output string) error {
		return runCmd(append([]string{"--model", model, "--input", input, "--output", output, "--devices", r.Devices, "--log-level", "warn"}, extra...))
	}
	log.Info(fmt.Sprintf("checking the %s copy's answers against float32's on the first %d documents of %s", copyName, r.Docs, strings.Join(r.Inputs, ", ")))
	res, err := Compare(Options{Inputs: r.Inputs, Docs: r.Docs, Questions: r.Questions, QuestionsFile: r.QuestionsFile, MinF1: r.MinF1,
		Fields: record.Fields{ID: r.IDField, Context: r.ContextField, Question: r.QuestionField}}, float32Model, copyModel, copyName, run)
	if res.Pairs > 0 {
		res.Log(log)
	}
	return err
}
