package quantize

import (
	"context"
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

// baseSetup is the quantized base model, the windows and the logits'
// deviation, made once per test binary (a benchmark function runs more
// than once), and the sessions of each layout.
var baseSetup struct {
	sync.Once
	dir           string // temporary folder of the int8 copy
	src, dst      string
	rep           Report
	took          time.Duration
	ws            []qa.Window
	worstAbs, rel float64
	layouts       map[int][2][]*worker.Replica // sessions -> float32, int8 replicas
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
		s.src, s.layouts = baseModel(b), map[int][2][]*worker.Replica{}
		var err error
		if s.dir, err = os.MkdirTemp("", "qa-shard-base-int8-"); err != nil {
			b.Fatal(err)
		}
		s.dst = filepath.Join(s.dir, "base-int8")
		start := time.Now()
		if s.rep, err = Dir(s.src, s.dst, Options{}); err != nil {
			b.Fatal(err)
		}
		s.took = time.Since(start)
		for _, w := range realWindows(b, filepath.Join(s.dst, "tokenizer.json")) {
			if w.Len() == qa.DefaultSettings().MaxSeqLen {
				s.ws = append(s.ws, w)
			}
		}
		if len(s.ws) == 0 {
			b.Fatal("no full-length window in the sample text")
		}
		rs := layout(b, 1)
		for _, w := range s.ws {
			abs, rel := deviation(runBatch(b, rs[0][0], batchOf(0, w)), runBatch(b, rs[1][0], batchOf(0, w)))
			s.worstAbs, s.rel = max(s.worstAbs, abs), max(s.rel, rel)
		}
	})
	if s.ws == nil {
		b.Fatal("the base model setup failed")
	}
}

// layout opens, once, n sessions of each model sharing the cores.
func layout(b *testing.B, n int) [2][]*worker.Replica {
	s := &baseSetup
	if rs, ok := s.layouts[n]; ok {
		return rs
	}
	var rs [2][]*worker.Replica
	for i, dir := range []string{s.src, s.dst} {
		m, err := worker.OpenModel(dir)
		if err != nil {
			b.Fatal(err)
		}
		for range n {
			r, err := worker.NewReplica(m, worker.ReplicaOptions{Name: filepath.Base(dir), Threads: max(1, runtime.NumCPU()/n)})
			if err != nil {
				b.Fatal(err)
			}
			rs[i] = append(rs[i], r)
		}
	}
	s.layouts[n] = rs
	return rs
}

// BenchmarkBaseInt8 quantizes the bert-base-sized model, reports the int8
// logits' deviation from float32 on real 384-token windows, then runs the
// raw models side by side on those windows, one window per batch (the
// shape qa-shard gives int8), alternating which model goes first, in two
// layouts: one session with every core, and one single-threaded session
// per core running windows at the same time. It reports tokens/s of each
// model and their ratio. One iteration is one round of windows through
// each model; run it with -benchtime Nx.
func BenchmarkBaseInt8(b *testing.B) {
	setupBase(b)
	for _, sessions := range []int{1, runtime.NumCPU()} {
		b.Run(fmt.Sprintf("sessions=%d", sessions), func(b *testing.B) { benchLayout(b, sessions) })
	}
}

func benchLayout(b *testing.B, sessions int) {
	s := &baseSetup
	rs, ws := layout(b, sessions), s.ws
	threads := max(1, runtime.NumCPU()/sessions)
	// round runs one window on every session of a model at once.
	round := func(reps []*worker.Replica, i int) {
		var wg sync.WaitGroup
		for k, r := range reps {
			batch := batchOf(0, ws[(i*len(reps)+k)%len(ws)])
			wg.Go(func() {
				if _, err := r.Run(context.Background(), batch); err != nil {
					b.Error(err) // not Fatal: this is not the benchmark's goroutine
				}
			})
		}
		wg.Wait()
	}
	loadBefore := loadAverage()
	var times [2]time.Duration
	b.ResetTimer()
	for i := range b.N {
		for j := range 2 {
			m := (i + j) % 2 // alternate which model goes first
			t0 := time.Now()
			round(rs[m], i)
			times[m] += time.Since(t0)
		}
	}
	b.StopTimer()
	tokens := float64(b.N * sessions * qa.DefaultSettings().MaxSeqLen)
	fp, i8 := tokens/times[0].Seconds(), tokens/times[1].Seconds()
	b.ReportMetric(fp, "fp32-tokens/s")
	b.ReportMetric(i8, "int8-tokens/s")
	b.ReportMetric(i8/fp, "int8/fp32")
	b.ReportMetric(s.worstAbs, "max-logit-diff")
	fmt.Printf("\nint8 vs float32, %s (%d MatMuls int8, %d biases folded; %.0f MB -> %.0f MB; quantized in %s)\n",
		s.src, s.rep.MatMuls, s.rep.Folded, float64(s.rep.InBytes)/1e6, float64(s.rep.OutBytes)/1e6, s.took.Round(time.Millisecond))
	fmt.Printf("| measure | value |\n|---|---|\n")
	fmt.Printf("| layout | %d session(s) x %d thread(s), batch 1, %d tokens, %d rounds per model, interleaved |\n", sessions, threads, qa.DefaultSettings().MaxSeqLen, b.N)
	fmt.Printf("| float32 tokens/s | %.0f |\n| int8 tokens/s | %.0f |\n| int8 / float32 | %.2f |\n", fp, i8, i8/fp)
	fmt.Printf("| int8 logits vs float32, max abs diff over %d real windows | %.4f (%.2f%% of a window's logit span) |\n", len(ws), s.worstAbs, 100*s.rel)
	fmt.Printf("| load average before / after | %s / %s |\n", loadBefore, loadAverage())
}
