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
	// Parquet, whose footers give the number of documents before the run
	// (a JSONL file's lines are not counted in advance).
	in := toParquet(t, corpusRecords(t, writeCorpus(t, 300, 41)), "docs.parquet", 64)
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	cmd, stderr := startChild(t, "--model", model(t, "tiny"), "--input", in, "--question", "Who?", "--output", out,
		"--devices", "sim:2:rate=30000", "--max-batch-tokens", "2048", "--metrics-addr", addr)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var body string
	waitFor(t, func() bool {
		select {
		case err := <-exited:
			t.Fatalf("run ended (exit %d) before a scrape saw progress:\n%s", exitCodeOf(err), stderr)
		default:
		}
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
	if err := <-exited; err != nil {
		t.Fatalf("run exit %d:\n%s", exitCodeOf(err), stderr)
	}
}
