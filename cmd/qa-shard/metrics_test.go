//go:build testhooks

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	promodel "github.com/prometheus/common/model"

	"qa-shard/internal/metrics"
)

// TestMetricsTwoRanksOneHost: two ranks on one host, both with
// --metrics-addr :0 and one --metrics-textfile: no port collides, each
// writes where it serves beside its output, both are scraped while they
// run, every series says which rank and host it is from, and each rank
// leaves its own textfile with its final counts. Each rank is held when
// it reads its document 50 until both were scraped, so neither can end
// before a scrape sees its progress, however slow the machine.
func TestMetricsTwoRanksOneHost(t *testing.T) {
	in := writeCorpus(t, 300, 41)
	dir := t.TempDir()
	out, prom := filepath.Join(dir, "answers.jsonl"), filepath.Join(dir, "qa-shard.prom")
	type rank struct {
		output, textfile string
		exited           chan error
		stderr           fmt.Stringer
		c                *child
	}
	var ranks []*rank
	for r := range 2 {
		c := startHooked(t, []string{envPauseAt + "=50"}, "--model", model(t, "tiny"), "--input", in, "--question", "Who?", "--output", out,
			"--rank", fmt.Sprint(r), "--world-size", "2", "--devices", "sim:2:rate=30000", "--max-batch-tokens", "2048",
			"--metrics-addr", ":0", "--metrics-textfile", prom)
		rk := &rank{output: strings.TrimSuffix(out, ".jsonl") + fmt.Sprintf(".rank-%05d-of-00002.jsonl", r),
			textfile: filepath.Join(dir, fmt.Sprintf("qa-shard.rank-%05d-of-00002.prom", r)), exited: make(chan error, 1), stderr: c.stderr, c: c}
		go func() { rk.exited <- c.Wait() }()
		ranks = append(ranks, rk)
	}
	host := metrics.Host()
	targets := map[string]bool{}
	for r, rk := range ranks {
		var body map[string]*dto.MetricFamily
		waitFor(t, func() bool {
			select {
			case err := <-rk.exited:
				t.Fatalf("rank %d ended (exit %d) before a scrape saw its progress:\n%s", r, exitCodeOf(err), rk.stderr)
			default:
			}
			var sd []struct{ Targets []string }
			b, err := os.ReadFile(rk.output + ".metrics.json")
			if err != nil || json.Unmarshal(b, &sd) != nil || len(sd) != 1 || len(sd[0].Targets) != 1 {
				return false
			}
			resp, err := http.Get("http://" + sd[0].Targets[0] + "/metrics")
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			body, err = parseMetrics(resp.Body)
			if err != nil {
				t.Fatalf("rank %d: scrape does not parse: %v", r, err)
			}
			targets[sd[0].Targets[0]] = true
			// Families are gathered concurrently: a scrape taken as the
			// first batch ends may show its documents before its batch.
			docs := body["qa_shard_documents_total"]
			return docs != nil && docs.GetMetric()[0].GetCounter().GetValue() > 0 && body["qa_shard_batches_total"] != nil
		})
		for _, name := range []string{"qa_shard_documents_total", "qa_shard_batches_total", "qa_shard_progress_ratio", "go_goroutines"} {
			fam := body[name]
			if fam == nil {
				t.Errorf("rank %d: scrape lacks %s", r, name)
				continue
			}
			for _, m := range fam.GetMetric() {
				if l := labels(m); l["rank"] != fmt.Sprint(r) || l["host"] != host {
					t.Errorf("rank %d: %s%v, want rank=%d and host=%s", r, name, l, r, host)
				}
			}
		}
	}
	if len(targets) != 2 {
		t.Errorf("the ranks served at %v: want two addresses", targets)
	}
	for r, rk := range ranks {
		rk.c.stdin.Close()
		if err := <-rk.exited; err != nil {
			t.Fatalf("rank %d exit %d:\n%s", r, exitCodeOf(err), rk.stderr)
		}
		if _, err := os.Stat(rk.output + ".metrics.json"); !os.IsNotExist(err) {
			t.Errorf("rank %d: %s.metrics.json outlives the run (%v)", r, rk.output, err)
		}
		f, err := os.Open(rk.textfile)
		if err != nil {
			t.Fatalf("rank %d: no textfile: %v", r, err)
		}
		fams, err := parseMetrics(f)
		f.Close()
		if err != nil {
			t.Fatalf("rank %d: textfile does not parse: %v", r, err)
		}
		docs := fams["qa_shard_documents_total"].GetMetric()[0]
		// A JSONL input's documents are not counted in advance (no pass
		// over the input): the rank's journal says how many it wrote.
		want := float64(journalDone(rk.output))
		if got := docs.GetCounter().GetValue(); got != want || got < 100 || labels(docs)["rank"] != fmt.Sprint(r) {
			t.Errorf("rank %d: textfile documents_total %v %v, want the rank's %v documents", r, got, labels(docs), want)
		}
		if ratio := fams["qa_shard_progress_ratio"].GetMetric()[0].GetGauge().GetValue(); ratio != 1 {
			t.Errorf("rank %d: final progress_ratio %v, want 1", r, ratio)
		}
	}
}

func parseMetrics(r io.Reader) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(promodel.UTF8Validation)
	return p.TextToMetricFamilies(r)
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}
