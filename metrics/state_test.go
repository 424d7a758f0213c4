package metrics

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qa-shard/scheduler"
)

// TestEveryCounterFromTheStart: a fresh registry told the run's replicas
// exports every counter at 0, failures by replica and every kind the
// scheduler reports, so the first failure is an increase from 0 (an alert
// on increase() sees it), not a new series.
func TestEveryCounterFromTheStart(t *testing.T) {
	r := new(testID)
	r.SetReplicas([]string{"cpu:0", "cpu:1"})
	f := scrape(t, r)
	for _, n := range []string{"qa_shard_documents_total", "qa_shard_windows_total", "qa_shard_tokens_total", "qa_shard_padded_tokens_total"} {
		expectValue(t, f, 0, n)
	}
	for _, rep := range []string{"cpu:0", "cpu:1"} {
		expectValue(t, f, 0, "qa_shard_batches_total", "replica", rep)
		for _, kind := range []string{"error", "out of memory", "fatal"} {
			expectValue(t, f, 0, "qa_shard_failures_total", "replica", rep, "kind", kind)
		}
		checkHistogram(t, f, rep, 0, 0, nil)
	}
	for name, fam := range f {
		if fam.GetType().String() != "COUNTER" || !strings.HasPrefix(name, Namespace+"_") {
			continue
		}
		for _, m := range fam.GetMetric() {
			if m.GetCounter().GetValue() != 0 {
				t.Errorf("%s %v = %v before any event", fam.GetName(), m.GetLabel(), m.GetCounter().GetValue())
			}
		}
	}
	r.Observer().Failure("cpu:1", "fatal")
	expectValue(t, scrape(t, r), 1, "qa_shard_failures_total", "replica", "cpu:1", "kind", "fatal")
}

// TestInfoStateAndCheckpoint: the info series carries what the run is;
// the state series is 1 for the run's state only, running from the start;
// the last checkpoint is the journal's time, NaN without one.
func TestInfoStateAndCheckpoint(t *testing.T) {
	r := new(testID)
	f := scrape(t, r)
	expectValue(t, f, 1, "qa_shard_run_state", "state", "running")
	expectValue(t, f, 0, "qa_shard_run_state", "state", "stopping")
	expectValue(t, f, 0, "qa_shard_run_state", "state", "done")
	if v := f.value(t, "qa_shard_last_checkpoint_timestamp_seconds"); !math.IsNaN(v) {
		t.Errorf("last checkpoint %v without a journal, want NaN", v)
	}

	r.SetInfo(Info{Version: "v1.2", Model: "models/bert-large-squad", ONNXRuntime: "1.30.0", Devices: "cpu AMD EPYC (2 cores), AVX-512 VNNI"})
	journal := filepath.Join(t.TempDir(), "answers.jsonl.journal")
	r.SetJournal(journal)
	f = scrape(t, r)
	expectValue(t, f, 1, "qa_shard_info", "version", "v1.2", "model", "models/bert-large-squad", "onnxruntime", "1.30.0", "devices", "cpu AMD EPYC (2 cores), AVX-512 VNNI")
	if v := f.value(t, "qa_shard_last_checkpoint_timestamp_seconds"); !math.IsNaN(v) {
		t.Errorf("last checkpoint %v before the journal exists, want NaN", v)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := os.WriteFile(journal, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(journal, at, at); err != nil {
		t.Fatal(err)
	}
	expectValue(t, scrape(t, r), float64(at.Unix()), "qa_shard_last_checkpoint_timestamp_seconds")

	for _, s := range []scheduler.State{scheduler.Stopping, scheduler.Done} {
		r.Observer().Progress(scheduler.Progress{State: s, Fraction: -1, ETA: -1})
		f = scrape(t, r)
		for _, x := range scheduler.States() {
			want := 0.0
			if x == s {
				want = 1
			}
			expectValue(t, f, want, "qa_shard_run_state", "state", string(x))
		}
	}
}
