package quantize

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"qa-shard/internal/testenv"
	"qa-shard/qa"
	"qa-shard/worker"
)

// baseModel is the bert-base-sized model folder: $QA_SHARD_BASE_MODEL, else
// the one `make build/models/base/model.onnx` writes.
func baseModel(b *testing.B) string {
	dir := os.Getenv("QA_SHARD_BASE_MODEL")
	if dir == "" {
		root, err := testenv.RepoRoot()
		if err != nil {
			b.Fatal(err)
		}
		dir = filepath.Join(root, "build", "models", "base")
	}
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		b.Fatalf("%s has no model.onnx: run `make build/models/base/model.onnx` or set QA_SHARD_BASE_MODEL", dir)
	}
	return dir
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// baseSetup is the quantized base model, its replicas and the windows,
// made once per test binary: the benchmark function runs more than once.
var baseSetup struct {
	sync.Once
	dir           string // temporary folder of the int8 copy
	src           string
	rep           Report
	took          time.Duration
	fr, qr        *worker.Replica
	ws            []qa.Window
	worstAbs, rel float64
}

// TestMain removes the benchmark's quantized copy.
func TestMain(m *testing.M) {
	code := m.Run()
	if baseSetup.dir != "" {
		os.RemoveAll(baseSetup.dir)
	}
	os.Exit(code)
}

func setupBase(b *testing.B) {
	requireORT(b)
	s := &baseSetup
	s.Do(func() {
		s.src = baseModel(b)
		var err error
		if s.dir, err = os.MkdirTemp("", "qa-shard-base-int8-"); err != nil {
			b.Fatal(err)
		}
		dst := filepath.Join(s.dir, "base-int8")
		start := time.Now()
		if s.rep, err = Dir(s.src, dst); err != nil {
			b.Fatal(err)
		}
		s.took = time.Since(start)
		s.fr = newReplica(b, s.src)
		s.qr = newReplica(b, dst)
		for _, w := range realWindows(b, filepath.Join(dst, "tokenizer.json")) {
			if w.Len() == qa.DefaultSettings().MaxSeqLen {
				s.ws = append(s.ws, w)
			}
		}
		if len(s.ws) == 0 {
			b.Fatal("no full-length window in the sample text")
		}
		for _, w := range s.ws {
			abs, rel := deviation(runBatch(b, s.fr, batchOf(0, w)), runBatch(b, s.qr, batchOf(0, w)))
			s.worstAbs, s.rel = max(s.worstAbs, abs), max(s.rel, rel)
		}
	})
	if s.qr == nil {
		b.Fatal("the base model setup failed")
	}
}

func newReplica(b *testing.B, dir string) *worker.Replica {
	m, err := worker.OpenModel(dir)
	if err != nil {
		b.Fatal(err)
	}
	r, err := worker.NewReplica(m, worker.ReplicaOptions{Name: filepath.Base(dir), Threads: runtime.NumCPU()})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkBaseInt8 quantizes the bert-base-sized model, reports the int8
// logits' deviation from float32 on real 384-token windows, then runs the
// raw models side by side on those windows, one window per batch (the
// shape qa-shard gives int8), alternating which model goes first, and
// reports tokens/s of each and their ratio. One iteration is one window
// through each model; run it with -benchtime Nx.
func BenchmarkBaseInt8(b *testing.B) {
	setupBase(b)
	s := &baseSetup
	fr, qr, ws, threads := s.fr, s.qr, s.ws, runtime.NumCPU()
	loadBefore := loadAverage()
	var fpTime, i8Time time.Duration
	b.ResetTimer()
	for i := range b.N {
		batch := batchOf(0, ws[i%len(ws)])
		runs := []struct {
			rep *time.Duration
			run func()
		}{{&fpTime, func() { runBatch(b, fr, batch) }}, {&i8Time, func() { runBatch(b, qr, batch) }}}
		if i%2 == 1 {
			runs[0], runs[1] = runs[1], runs[0]
		}
		for _, r := range runs {
			t0 := time.Now()
			r.run()
			*r.rep += time.Since(t0)
		}
	}
	b.StopTimer()
	tokens := float64(b.N * qa.DefaultSettings().MaxSeqLen)
	fp, i8 := tokens/fpTime.Seconds(), tokens/i8Time.Seconds()
	b.ReportMetric(fp, "fp32-tokens/s")
	b.ReportMetric(i8, "int8-tokens/s")
	b.ReportMetric(i8/fp, "int8/fp32")
	b.ReportMetric(s.worstAbs, "max-logit-diff")
	fmt.Printf("\nint8 vs float32, %s (%d MatMuls int8, %d biases folded; %.0f MB -> %.0f MB; quantized in %s)\n",
		s.src, s.rep.MatMuls, s.rep.Folded, float64(s.rep.InBytes)/1e6, float64(s.rep.OutBytes)/1e6, s.took.Round(time.Millisecond))
	fmt.Printf("| measure | value |\n|---|---|\n")
	fmt.Printf("| windows (batch 1, %d tokens, 1 session x %d threads) | %d runs of each model, interleaved |\n", qa.DefaultSettings().MaxSeqLen, threads, b.N)
	fmt.Printf("| float32 tokens/s | %.0f |\n| int8 tokens/s | %.0f |\n| int8 / float32 | %.2f |\n", fp, i8, i8/fp)
	fmt.Printf("| int8 logits vs float32, max abs diff over %d real windows | %.4f (%.2f%% of a window's logit span) |\n", len(ws), s.worstAbs, 100*s.rel)
	fmt.Printf("| load average before / after | %s / %s |\n", loadBefore, loadAverage())
}
