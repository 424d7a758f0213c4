package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"qa-shard/internal/int8check"
	"qa-shard/internal/isa"
	"qa-shard/internal/logs"
	"qa-shard/internal/record"
	"qa-shard/quantize"
	"qa-shard/worker"
)

// quantizeCmd writes a dynamically quantized int8 copy of a model folder,
// then, where ONNX Runtime is at hand, checks that the copy loads and says
// how far its logits are from the original's on a sample window.
func quantizeCmd(args []string) error {
	r, err := quantize.Parse(args)
	if err != nil {
		return err
	}
	log, err := logs.New(r.LogFormat, r.LogLevel)
	if err != nil {
		return err
	}
	defer log.Sync()
	start := time.Now()
	rep, err := quantize.Dir(r.Model, r.Out, r.Options)
	if err != nil {
		return err
	}
	rep.Log(log, r.Out, time.Since(start))
	lib := worker.FindLib(r.ORTLib)
	if lib == "" && os.Getenv(worker.EnvORTLib) == "" {
		if len(r.Check.Inputs) > 0 {
			return fmt.Errorf("%w: --check-input answers with ONNX Runtime, and no library was found: pass --ort-lib PATH or set %s (%s is written)", errUsage, worker.EnvORTLib, r.Out)
		}
		log.Warn(fmt.Sprintf("not checked with ONNX Runtime: no library found (pass --ort-lib PATH or set %s)", worker.EnvORTLib))
		return nil
	}
	if err := worker.Init(lib); err != nil {
		return err
	}
	c, err := quantize.Check(r.Model, r.Out)
	if err != nil {
		return err
	}
	c.Log(log, isa.Detect(), r.Options.Scheme)
	if len(r.Check.Inputs) == 0 {
		return nil
	}
	return checkAnswers(r, log)
}

// checkAnswers runs the answer check (--check-input): the sample is
// answered by two runs of this program, the float32 model's and the
// copy's.
func checkAnswers(r quantize.Request, log *zap.Logger) error {
	c := r.Check
	run := func(model, input, output string) error {
		return runCmd([]string{"--model", model, "--input", input, "--output", output, "--devices", c.Devices, "--ort-lib", worker.FindLib(r.ORTLib),
			"--log-format", r.LogFormat, "--log-level", "warn"})
	}
	log.Info(fmt.Sprintf("checking the int8 copy's answers against float32's on the first %d documents of %s", c.Docs, strings.Join(c.Inputs, ", ")))
	res, err := int8check.Check(int8check.Options{Inputs: c.Inputs, Docs: c.Docs, Questions: c.Questions, QuestionsFile: c.QuestionsFile, MinF1: c.MinF1,
		Fields: record.Fields{ID: c.IDField, Context: c.ContextField, Question: c.QuestionField}}, r.Model, r.Out, run)
	if res.Pairs > 0 {
		res.Log(log)
	}
	return err
}
