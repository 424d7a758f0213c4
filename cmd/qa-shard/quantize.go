package main

import (
	"fmt"
	"os"
	"time"

	"qa-shard/internal/isa"
	"qa-shard/internal/logs"
	"qa-shard/internal/quantize"
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
	return nil
}
