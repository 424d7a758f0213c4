package metrics

import (
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"qa-shard/gpu"
	"qa-shard/scheduler"
)

func TestFreshRegistry(t *testing.T) {
	f := scrape(t, new(testID))
	expectValue(t, f, 0, "qa_shard_documents_total")
	expectValue(t, f, 0, "qa_shard_records_total", "kind", "answer")
	expectValue(t, f, 0, "qa_shard_records_total", "kind", "error")
	for _, q := range []string{"docs_in_flight", "windows_pooled", "batches_queued"} {
		expectValue(t, f, 0, "qa_shard_queue_depth", "queue", q)
	}
	// Unknown until the first Progress.
	for _, n := range []string{"qa_shard_eta_seconds", "qa_shard_progress_ratio", "qa_shard_documents_expected"} {
		if v := f.value(t, n); !math.IsNaN(v) {
			t.Errorf("%s = %v before any progress, want NaN", n, v)
		}
	}
	// Per-replica series appear only once a replica reports.
	if f.metric("qa_shard_batches_total", "replica", "cpu:0") != nil {
		t.Error("batches_total has a series before any batch")
	}
	// The Go and process collectors are registered.
	for _, n := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if f[n] == nil {
			t.Errorf("%s missing from the scrape", n)
		}
	}
}

func TestObserverScriptedRun(t *testing.T) {
	r := new(testID)
	o := r.Observer()
	o.BatchDone("cpu:0", 4, 300, 512, 20*time.Millisecond)
	o.BatchDone("cpu:1", 2, 100, 128, 2*time.Second)
	o.BatchDone("cpu:0", 1, 10, 16, 400*time.Millisecond)
	o.Records(2, 0)
	o.Records(0, 1)
	o.Records(3, 1)
	o.Failure("cpu:1", "out of memory")
	o.Failure("cpu:1", "out of memory")
	o.Failure("cpu:0", "fatal")
	o.Progress(scheduler.Progress{Docs: 3, DocsTotal: 12, Fraction: 0.25, ETA: 90 * time.Second, DocsInFlight: 5, WindowsPooled: 40, BatchesQueued: 2})

	f := scrape(t, r)
	expectValue(t, f, 3, "qa_shard_documents_total")
	expectValue(t, f, 5, "qa_shard_records_total", "kind", "answer")
	expectValue(t, f, 2, "qa_shard_records_total", "kind", "error")
	expectValue(t, f, 7, "qa_shard_windows_total")
	expectValue(t, f, 410, "qa_shard_tokens_total")
	expectValue(t, f, 656, "qa_shard_padded_tokens_total")
	expectValue(t, f, 2, "qa_shard_batches_total", "replica", "cpu:0")
	expectValue(t, f, 1, "qa_shard_batches_total", "replica", "cpu:1")
	expectValue(t, f, 2, "qa_shard_failures_total", "replica", "cpu:1", "kind", "out of memory")
	expectValue(t, f, 1, "qa_shard_failures_total", "replica", "cpu:0", "kind", "fatal")
	if f.metric("qa_shard_failures_total", "replica", "cpu:0", "kind", "out of memory") != nil {
		t.Error("a failure series exists for a failure that did not happen")
	}
	expectValue(t, f, 0.25, "qa_shard_progress_ratio")
	expectValue(t, f, 90, "qa_shard_eta_seconds")
	expectValue(t, f, 12, "qa_shard_documents_expected")
	expectValue(t, f, 5, "qa_shard_queue_depth", "queue", "docs_in_flight")
	expectValue(t, f, 40, "qa_shard_queue_depth", "queue", "windows_pooled")
	expectValue(t, f, 2, "qa_shard_queue_depth", "queue", "batches_queued")

	// cpu:0 ran 20 ms and 400 ms; cpu:1 ran 2 s.
	checkHistogram(t, f, "cpu:0", 2, 0.42, map[float64]uint64{0.01: 0, 0.025: 1, 0.25: 1, 0.5: 2, 300: 2})
	checkHistogram(t, f, "cpu:1", 1, 2, map[float64]uint64{1: 0, 2.5: 1, 300: 1})

	// The total and the ETA become unknown again: NaN, not the last value.
	o.Progress(scheduler.Progress{Docs: 6, Fraction: -1, ETA: -1})
	f = scrape(t, r)
	for _, n := range []string{"qa_shard_eta_seconds", "qa_shard_progress_ratio", "qa_shard_documents_expected"} {
		if v := f.value(t, n); !math.IsNaN(v) {
			t.Errorf("%s = %v after an unknown total and ETA, want NaN", n, v)
		}
	}
	expectValue(t, f, 0, "qa_shard_queue_depth", "queue", "windows_pooled")

	// Done: an ETA of 0 is a value, not "unknown".
	o.Progress(scheduler.Progress{Docs: 12, DocsTotal: 12, Fraction: 1})
	f = scrape(t, r)
	expectValue(t, f, 1, "qa_shard_progress_ratio")
	expectValue(t, f, 0, "qa_shard_eta_seconds")
}

// checkHistogram checks one replica's batch_duration_seconds: count, sum and
// the cumulative counts of some buckets.
func checkHistogram(t *testing.T, f families, replica string, count uint64, sum float64, buckets map[float64]uint64) {
	t.Helper()
	m := f.metric("qa_shard_batch_duration_seconds", "replica", replica)
	if m == nil || m.Histogram == nil {
		t.Fatalf("no batch_duration_seconds histogram for %s", replica)
	}
	h := m.GetHistogram()
	if h.GetSampleCount() != count {
		t.Errorf("%s: count %d, want %d", replica, h.GetSampleCount(), count)
	}
	if math.Abs(h.GetSampleSum()-sum) > 1e-9 {
		t.Errorf("%s: sum %v, want %v", replica, h.GetSampleSum(), sum)
	}
	got := map[float64]uint64{}
	var bounds []float64
	for _, b := range h.GetBucket() {
		got[b.GetUpperBound()] = b.GetCumulativeCount()
		bounds = append(bounds, b.GetUpperBound())
	}
	for le, want := range buckets {
		if c, ok := got[le]; !ok || c != want {
			t.Errorf("%s: bucket le=%v has %d (present %v), want %d", replica, le, c, ok, want)
		}
	}
	// The buckets span 1 ms to 5 min.
	if bounds = slices.DeleteFunc(bounds, func(b float64) bool { return math.IsInf(b, 1) }); !slices.Equal(bounds, BatchBuckets) {
		t.Errorf("%s: buckets %v, want %v", replica, bounds, BatchBuckets)
	}
}

func TestObserverIgnoresNegativeCounts(t *testing.T) {
	r := new(testID)
	o := r.Observer()
	// Counter.Add panics on a negative value; the observer must not.
	o.BatchDone("cpu:0", -1, -2, -3, time.Millisecond)
	o.Records(-1, -2)
	f := scrape(t, r)
	expectValue(t, f, 0, "qa_shard_windows_total")
	expectValue(t, f, 0, "qa_shard_tokens_total")
	expectValue(t, f, 0, "qa_shard_padded_tokens_total")
	expectValue(t, f, 0, "qa_shard_records_total", "kind", "answer")
	expectValue(t, f, 0, "qa_shard_records_total", "kind", "error")
	// The events themselves still count.
	expectValue(t, f, 1, "qa_shard_batches_total", "replica", "cpu:0")
	expectValue(t, f, 1, "qa_shard_documents_total")
}

// The scheduler calls the observer from many goroutines at once.
func TestObserverConcurrent(t *testing.T) {
	r := new(testID)
	o := r.Observer()
	const goroutines, each = 8, 500
	var wg sync.WaitGroup
	for g := range goroutines {
		replica := []string{"cpu:0", "cpu:1"}[g%2]
		wg.Go(func() {
			for range each {
				o.BatchDone(replica, 2, 3, 4, time.Millisecond)
				o.Records(1, 1)
				o.Failure(replica, "error")
				o.Progress(scheduler.Progress{Docs: 1, DocsTotal: 2, Fraction: 0.5, ETA: time.Second, DocsInFlight: 1, WindowsPooled: 1, BatchesQueued: 1})
			}
		})
	}
	wg.Wait()
	f := scrape(t, r)
	const n = goroutines * each
	expectValue(t, f, n, "qa_shard_documents_total")
	expectValue(t, f, n, "qa_shard_records_total", "kind", "answer")
	expectValue(t, f, 2*n, "qa_shard_windows_total")
	expectValue(t, f, 3*n, "qa_shard_tokens_total")
	expectValue(t, f, 4*n, "qa_shard_padded_tokens_total")
	expectValue(t, f, n/2, "qa_shard_batches_total", "replica", "cpu:1")
	expectValue(t, f, n/2, "qa_shard_failures_total", "replica", "cpu:0", "kind", "error")
}

// TestEverySeriesCarriesRankAndHost: ranks sharing a node, or meeting in
// one Prometheus, stay apart: every series, the Go and process ones and
// the GPUs' included, is labelled with the rank and the host.
func TestEverySeriesCarriesRankAndHost(t *testing.T) {
	r := new(Identity{Rank: 7, Host: "gpu-node-12"})
	r.SetGPUSource(func() []gpu.Sample {
		return []gpu.Sample{{Index: 0, UUID: "GPU-0", At: time.Now(), UtilPercent: 50, MemUsed: 1, TempC: 40, PowerW: 100}}
	})
	o := r.Observer()
	o.BatchDone("cuda:0", 1, 1, 1, time.Millisecond)
	o.Failure("cuda:0", "error")
	f := scrape(t, r)
	series := 0
	for name, fam := range f {
		for _, m := range fam.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["rank"] != "7" || labels["host"] != "gpu-node-12" {
				t.Errorf("%s%v lacks rank=7 and host=gpu-node-12", name, labels)
			}
			series++
		}
	}
	if f["qa_shard_gpu_utilization_ratio"] == nil || f["go_goroutines"] == nil || series < 30 {
		t.Errorf("scrape has %d series in %d families; want the GPU, Go and run series", series, len(f))
	}
}

// The names are what dashboards and the lead's wiring rely on.
func TestMetricNames(t *testing.T) {
	r := new(testID)
	o := r.Observer()
	o.BatchDone("cpu:0", 1, 1, 1, time.Millisecond)
	o.Failure("cpu:0", "error")
	r.SetInfo(Info{Version: "v"})
	f := scrape(t, r)
	want := []string{
		"qa_shard_batch_duration_seconds", "qa_shard_batches_total", "qa_shard_documents_expected",
		"qa_shard_documents_total", "qa_shard_eta_seconds", "qa_shard_failures_total", "qa_shard_info",
		"qa_shard_last_checkpoint_timestamp_seconds", "qa_shard_padded_tokens_total", "qa_shard_progress_ratio",
		"qa_shard_queue_depth", "qa_shard_records_total", "qa_shard_run_state", "qa_shard_tokens_total", "qa_shard_windows_total",
	}
	if got := f.names("qa_shard_"); !slices.Equal(got, want) {
		t.Errorf("families %v, want %v", got, want)
	}
}
