//go:build testhooks

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	promodel "github.com/prometheus/common/model"

	"qa-shard/metrics"
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
		// While it runs: running, every replica's failures of every kind
		// at 0 before any failed, and what the run is.
		if v := gaugeOf(body, "qa_shard_run_state", "state", "running"); v != 1 {
			t.Errorf("rank %d: run_state{state=running} %v while running, want 1", r, v)
		}
		if n := len(body["qa_shard_failures_total"].GetMetric()); n != 2*3 {
			t.Errorf("rank %d: %d failures_total series, want 2 replicas x 3 kinds at 0", r, n)
		}
		if info := body["qa_shard_info"].GetMetric(); len(info) != 1 || labels(info[0])["model"] != model(t, "tiny") ||
			labels(info[0])["onnxruntime"] == "" || !strings.HasPrefix(labels(info[0])["devices"], "sim:2") || labels(info[0])["version"] == "" {
			t.Errorf("rank %d: info series %v", r, info)
		}
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
		if v := gaugeOf(fams, "qa_shard_run_state", "state", "done"); v != 1 {
			t.Errorf("rank %d: final run_state{state=done} %v, want 1", r, v)
		}
		st, err := os.Stat(rk.output + ".journal")
		if got := gaugeOf(fams, "qa_shard_last_checkpoint_timestamp_seconds"); err != nil || got != float64(st.ModTime().UnixNano())/1e9 {
			t.Errorf("rank %d: last checkpoint %v, want the journal's time (%v, %v)", r, got, st.ModTime(), err)
		}
	}
}

// gaugeOf is the value of the gauge series of fams' family name whose
// labels include the pairs given; NaN when there is none.
func gaugeOf(fams map[string]*dto.MetricFamily, name string, pairs ...string) float64 {
	for _, m := range fams[name].GetMetric() {
		l, match := labels(m), true
		for i := 0; i+1 < len(pairs); i += 2 {
			match = match && l[pairs[i]] == pairs[i+1]
		}
		if match {
			return m.GetGauge().GetValue()
		}
	}
	return math.NaN()
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
