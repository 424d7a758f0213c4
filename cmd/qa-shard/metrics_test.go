package main

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetricsScrapedDuringRun: with --metrics-addr, /metrics serves the
// run's counters while it runs.
func TestMetricsScrapedDuringRun(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	in := writeCorpus(t, 300, 41)
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	// The run is held when it reads document 150 (so it cannot end before
	// a scrape sees its progress, however slow the machine) until the
	// scrape is done.
	c := startHooked(t, []string{envPauseAt + "=150"}, "--model", model(t, "tiny"), "--input", in, "--question", "Who?", "--output", out,
		"--devices", "sim:2:rate=30000", "--max-batch-tokens", "2048", "--metrics-addr", addr)
	var body string
	waitFor(t, func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		return strings.Contains(body, "qa_shard_documents_total ") && !strings.Contains(body, "qa_shard_documents_total 0\n") &&
			strings.Contains(body, "qa_shard_progress_ratio ") && !strings.Contains(body, "qa_shard_progress_ratio NaN")
	})
	for _, want := range []string{`qa_shard_batch_duration_seconds_bucket{replica="sim:0"`, `qa_shard_batches_total{replica="sim:1"}`,
		`qa_shard_queue_depth{queue="docs_in_flight"}`, "qa_shard_windows_total", "qa_shard_documents_expected 300"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if code := c.exit(); code != exitOK {
		t.Fatalf("run exit %d:\n%s", code, c.stderr)
	}
}
