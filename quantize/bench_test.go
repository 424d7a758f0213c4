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

	"qa-shard/internal/isa"
	"qa-shard/internal/testing/testenv"
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

// baseSetup is the model's int8 copies (one per scheme), the windows and
// the logits' deviation of each, made once per test binary (a benchmark
// function runs more than once), and the sessions of each layout.
var baseSetup struct {
	sync.Once
	dir     string // temporary folder of the int8 copies
	src     string
	copies  []int8Copy
	ws      []qa.Window
	layouts map[int][][]*worker.Replica // sessions -> float32, then each copy's replicas
}

// int8Copy is one scheme's quantized copy and how far it is from float32.
type int8Copy struct {
	scheme        Scheme
	dst           string
	rep           Report
	took          time.Duration
	worstAbs, rel float64
}

// TestMain removes the benchmark's quantized copies.
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
		s.src, s.layouts = baseModel(b), map[int][][]*worker.Replica{}
		var err error
		if s.dir, err = os.MkdirTemp("", "qa-shard-base-int8-"); err != nil {
			b.Fatal(err)
		}
		for _, sc := range Schemes {
			c := int8Copy{scheme: sc, dst: filepath.Join(s.dir, "int8-"+string(sc))}
			start := time.Now()
			if c.rep, err = Dir(s.src, c.dst, Options{Scheme: sc}); err != nil {
				b.Fatal(err)
			}
			c.took = time.Since(start)
			s.copies = append(s.copies, c)
		}
		for _, w := range realWindows(b, filepath.Join(s.src, "tokenizer.json")) {
			if w.Len() == qa.DefaultSettings().MaxSeqLen {
				s.ws = append(s.ws, w)
			}
		}
		if len(s.ws) == 0 {
			b.Fatal("no full-length window in the sample text")
		}
		rs := layout(b, 1)
		for _, w := range s.ws {
			fp := runBatch(b, rs[0][0], batchOf(0, w))
			for i := range s.copies {
				abs, rel := deviation(fp, runBatch(b, rs[1+i][0], batchOf(0, w)))
				c := &s.copies[i]
				c.worstAbs, c.rel = max(c.worstAbs, abs), max(c.rel, rel)
			}
		}
	})
	if s.ws == nil {
		b.Fatal("the base model setup failed")
	}
}

// layout opens, once, n sessions of each model (float32, then each int8
// copy) sharing the cores.
func layout(b *testing.B, n int) [][]*worker.Replica {
	s := &baseSetup
	if rs, ok := s.layouts[n]; ok {
		return rs
	}
	dirs := []string{s.src}
	for _, c := range s.copies {
		dirs = append(dirs, c.dst)
	}
	rs := make([][]*worker.Replica, len(dirs))
	for i, dir := range dirs {
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

// BenchmarkBaseInt8 quantizes the bert-base-sized model with every weight
// scheme, reports each int8 copy's logit deviation from float32 on real
// 384-token windows, then runs the raw models side by side on those
// windows, one window per batch (the shape qa-shard gives int8), rotating
// which model goes first, in two layouts: one session with every core, and
// one single-threaded session per core running windows at the same time.
// It reports tokens/s of each model and each copy's ratio to float32,
// with the CPU's instruction set, which decides the int8 kernels. One
// iteration is one round of windows through each model; run it with
// -benchtime Nx.
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
	times := make([]time.Duration, len(rs))
	b.ResetTimer()
	for i := range b.N {
		for j := range rs {
			m := (i + j) % len(rs) // rotate which model goes first
			t0 := time.Now()
			round(rs[m], i)
			times[m] += time.Since(t0)
		}
	}
	b.StopTimer()
	tokens := float64(b.N * sessions * qa.DefaultSettings().MaxSeqLen)
	fp := tokens / times[0].Seconds()
	b.ReportMetric(fp, "fp32-tokens/s")
	fmt.Printf("\nint8 vs float32, %s, CPU %s (%s), ONNX Runtime %s\n", s.src, cpuSet, isa.CPUName(), worker.Version())
	fmt.Printf("layout %d session(s) x %d thread(s), batch 1, %d tokens, %d rounds per model, interleaved; load average before %s\n",
		sessions, threads, qa.DefaultSettings().MaxSeqLen, b.N, loadBefore)
	fmt.Printf("| model | tokens/s | / float32 | max logit diff over %d real windows | share of a window's logit span | MB |\n|---|---:|---:|---:|---:|---:|\n", len(ws))
	fmt.Printf("| float32 | %.0f | 1.00 | - | - | %.0f |\n", fp, float64(s.copies[0].rep.InBytes)/1e6)
	for i, c := range s.copies {
		q := tokens / times[1+i].Seconds()
		b.ReportMetric(q, "int8-"+string(c.scheme)+"-tokens/s")
		b.ReportMetric(q/fp, "int8-"+string(c.scheme)+"/fp32")
		fmt.Printf("| int8 %s | %.0f | %.2f | %.4f | %.2f%% | %.0f |\n", c.scheme, q, q/fp, c.worstAbs, 100*c.rel, float64(c.rep.OutBytes)/1e6)
	}
	fmt.Printf("load average after: %s\n", loadAverage())
}

// cpuSet is this CPU's instruction set, named beside every int8 figure.
var cpuSet = isa.Detect()
