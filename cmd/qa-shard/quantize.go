package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"qa-shard/qa"
	"qa-shard/quantize"
	"qa-shard/worker"
	"qa-shard/worker/tokenizer"
)

// quantizeCmd writes a dynamically quantized int8 copy of a model folder,
// then, where ONNX Runtime is at hand, checks that the copy loads and says
// how far its logits are from the original's on a sample window.
func quantizeCmd(args []string) int {
	fs := flag.NewFlagSet("qa-shard quantize", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: qa-shard quantize --model DIR --out DIR

Writes an int8 copy of an optimum-exported model folder for the CPU: every
MatMul with a float32 weight becomes ONNX Runtime's DynamicQuantizeMatMul
(int8 weights, one scale per output column, bias folded in); the other files
are copied. Pass the result to --model unchanged: qa-shard runs it one
unpadded window per batch, so answers stay identical whatever the timing.

`)
		fs.PrintDefaults()
	}
	model := fs.String("model", "", "model folder exported by optimum, float32 (model.onnx, tokenizer.json, config.json)")
	out := fs.String("out", "", "new folder for the int8 copy; must not exist, or be empty")
	ortLib := fs.String("ort-lib", "", "ONNX Runtime library for checking the result (default as for run; without one the check is skipped)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *model == "" || *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "qa-shard quantize: pass --model DIR (the float32 export) and --out DIR (a new folder), nothing else")
		return exitUsage
	}
	start := time.Now()
	rep, err := quantize.Dir(*model, *out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard quantize: %v\n", err)
		if errors.Is(err, quantize.ErrUnsupported) {
			return exitUsage
		}
		return exitInternal
	}
	w := os.Stderr
	fmt.Fprintf(w, "qa-shard quantize: wrote %s in %s\n", *out, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(w, "  MatMuls now int8   %d (%d with the bias folded in; %d left float32: both inputs computed)\n", rep.MatMuls, rep.Folded, rep.Float)
	fmt.Fprintf(w, "  int8 weights       %d\n", rep.Weights)
	fmt.Fprintf(w, "  model.onnx         %.1f MB -> %.1f MB\n", float64(rep.InBytes)/1e6, float64(rep.OutBytes)/1e6)
	fmt.Fprintf(w, "  copied             %s\n", strings.Join(rep.Copied, ", "))
	if len(rep.Ignored) > 0 {
		fmt.Fprintf(w, "  not copied         %s (subfolders)\n", strings.Join(rep.Ignored, ", "))
	}
	lib := defaultORTLib(*ortLib)
	if lib == "" && os.Getenv(worker.EnvORTLib) == "" {
		fmt.Fprintf(w, "  not checked with ONNX Runtime: no library found (pass --ort-lib PATH or set %s)\n", worker.EnvORTLib)
		return exitOK
	}
	c, err := checkQuantized(*model, *out, lib)
	if err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard quantize: checking the result: %v\n", err)
		if errors.Is(err, errQuantizedUnusable) {
			os.RemoveAll(*out)
			fmt.Fprintf(os.Stderr, "qa-shard quantize: %s removed; please report this model\n", *out)
		}
		return exitCode(err)
	}
	fmt.Fprintf(w, "  checked            ONNX Runtime %s loads it; on a sample window of %d tokens its logits are within %.4f of float32 (whose logits span %.2f)\n",
		worker.Version(), c.tokens, c.maxDiff, c.span)
	return exitOK
}

// errQuantizedUnusable: ONNX Runtime refused the model just written.
var errQuantizedUnusable = errors.New("the quantized model does not load")

type sampleCheck struct {
	tokens        int
	maxDiff, span float64
}

// sampleQuestion and sampleContext make one realistic window for the check.
const (
	sampleQuestion = "Who designed the bridge over the river?"
	sampleContext  = "The old bridge over the river was designed in 1889 by the engineer Maria Costa, " +
		"who also built the railway station and the harbor walls. Her company, founded in Lisbon with two partners, " +
		"employed more than three hundred workers at its peak and moved its headquarters to Porto after the war."
)

// checkQuantized runs the sample window through the original and the
// quantized model and compares their logits.
func checkQuantized(orig, quant, lib string) (sampleCheck, error) {
	if err := worker.Init(lib); err != nil {
		return sampleCheck{}, err
	}
	fm, err := worker.OpenModel(orig)
	if err != nil {
		return sampleCheck{}, err
	}
	qm, err := worker.OpenModel(quant)
	if err != nil {
		return sampleCheck{}, fmt.Errorf("%w: %w", errQuantizedUnusable, err)
	}
	if !qm.QuantizedActivations {
		return sampleCheck{}, fmt.Errorf("%w: it has no DynamicQuantize operator", errQuantizedUnusable)
	}
	tok, err := tokenizer.Load(filepath.Join(quant, "tokenizer.json"))
	if err != nil {
		return sampleCheck{}, fmt.Errorf("%w: %w", worker.ErrConfig, err)
	}
	cls, sep, _ := tok.SpecialIDs()
	ws, err := qa.Windows(tok.Encode(sampleQuestion), tok.Encode(sampleContext), qa.Special{CLS: cls, SEP: sep}, qa.DefaultSettings())
	if err != nil {
		return sampleCheck{}, err
	}
	b := windowBatch(ws[0])
	var res [2]qa.Logits
	for i, m := range []*worker.Model{fm, qm} {
		r, err := worker.NewReplica(m, worker.ReplicaOptions{Name: "check", Threads: runtime.NumCPU()})
		if err != nil {
			return sampleCheck{}, err
		}
		res[i], err = r.Run(context.Background(), b)
		r.Close()
		if err != nil {
			if i == 1 {
				err = fmt.Errorf("%w: %w", errQuantizedUnusable, err)
			}
			return sampleCheck{}, err
		}
	}
	c := sampleCheck{tokens: b.Len}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pair := range [][2][]float32{{res[0].Start, res[1].Start}, {res[0].End, res[1].End}} {
		for j, f := range pair[0] {
			c.maxDiff = max(c.maxDiff, math.Abs(float64(f-pair[1][j])))
			lo, hi = min(lo, float64(f)), max(hi, float64(f))
		}
	}
	c.span = hi - lo
	return c, nil
}

// windowBatch lays one window out as a batch of one, unpadded.
func windowBatch(w qa.Window) qa.Batch {
	n := len(w.IDs)
	b := qa.Batch{Rows: 1, Len: n, InputIDs: make([]int64, n), AttentionMask: make([]int64, n), TypeIDs: make([]int64, n)}
	for i, id := range w.IDs {
		b.InputIDs[i], b.AttentionMask[i], b.TypeIDs[i] = int64(id), 1, int64(w.TypeIDs[i])
	}
	return b
}
