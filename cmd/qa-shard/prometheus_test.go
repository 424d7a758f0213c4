//go:build testhooks

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"qa-shard/internal/testing/testenv"
)

// envRequirePrometheus makes TestPrometheusWatchesRanks fail, rather than
// skip, where Prometheus is not installed (make prometheus-check sets it).
const envRequirePrometheus = "QA_SHARD_REQUIRE_PROMETHEUS"

// TestPrometheusWatchesRanks runs a real Prometheus server on loopback with
// the shipped scrape config and rules (intervals and for: durations cut to
// test size) and two ranks of a real run serving --metrics-addr
// 127.0.0.1:0. Prometheus finds both through the file_sd files they write;
// its HTTP API reports, per rank, the documents the rank answered when it
// paused (a hook holds each rank at document 60), and every query of the
// Grafana dashboard evaluates (dashboardQueries). Then, with rank 1
// stopped by SIGSTOP, exactly two alerts fire: QaShardRankUnreachable for
// rank 1 (its scrapes fail) and QaShardStalled for rank 0 (up, not done,
// no batch finishing while it is held). Once both ranks finish, their
// targets are gone and no alert fires. Bounded:
// every wait gives up after a minute and a half; Prometheus and the ranks
// are killed at the end whatever happens.
func TestPrometheusWatchesRanks(t *testing.T) {
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		testenv.Need(t, testenv.Absent("Prometheus", "install Debian's prometheus (`sudo make deps`)", err), envRequirePrometheus)
	}
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	if err := os.Mkdir(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	testSizedConfig(t, dir)
	api := startPrometheus(t, prom, dir)

	const pauseAt, docs = 60, 300
	in := writeCorpus(t, docs, 5)
	out := filepath.Join(runs, "answers.jsonl")
	var ranks [2]*child
	for r := range ranks {
		ranks[r] = startHooked(t, []string{fmt.Sprintf("%s=%d", envPauseAt, pauseAt)},
			"--model", model(t, "tiny"), "--input", in, "--question", "Who founded the company?", "--output", out,
			"--rank", strconv.Itoa(r), "--world-size", "2", "--metrics-addr", "127.0.0.1:0", "--metrics-interval", "1s",
			"--devices", "cpu:1", "--threads", "1")
	}
	for r := range ranks {
		q := fmt.Sprintf(`qa_shard_documents_total{job="qa-shard",rank="%d"}`, r)
		api.waitFor(t, fmt.Sprintf("rank %d answering %d documents, seen by Prometheus", r, pauseAt), func() (bool, string) {
			v, err := api.value(q)
			return err == nil && v == pauseAt, fmt.Sprintf("%s = %v (%v)", q, v, err)
		})
	}
	dashboardQueries(t, api)
	if err := syscall.Kill(ranks[1].Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("[QaShardRankUnreachable %s QaShardStalled %s]", rankTarget(t, out, 1), rankTarget(t, out, 0))
	api.waitFor(t, "QaShardRankUnreachable for the stopped rank and QaShardStalled for the held one", func() (bool, string) {
		a, err := api.alerts()
		slices.Sort(a)
		return err == nil && fmt.Sprint(a) == want, fmt.Sprintf("firing %v, want %s (%v)", a, want, err)
	})
	if err := syscall.Kill(ranks[1].Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	for r, c := range ranks {
		if code := c.exit(); code != exitOK {
			t.Fatalf("rank %d: exit %d\n%s", r, code, c.stderr)
		}
		if _, err := os.Stat(rankOutput(out, r) + ".metrics.json"); !os.IsNotExist(err) {
			t.Errorf("rank %d's target file is still there after it ended: %v", r, err)
		}
	}
	api.waitFor(t, "both finished ranks forgotten and no alert firing", func() (bool, string) {
		a, err := api.alerts()
		n, err2 := api.count(`up{job="qa-shard"}`)
		return err == nil && err2 == nil && len(a) == 0 && n == 0, fmt.Sprintf("firing %v, %d targets (%v, %v)", a, n, err, err2)
	})
	var total int64
	for r := range ranks {
		total += journalDone(rankOutput(out, r))
	}
	if total != docs {
		t.Errorf("the ranks' journals hold %d documents, want %d", total, docs)
	}
}

// rankOutput is rank r's answers file of a 2-rank run writing out.
func rankOutput(out string, r int) string {
	return strings.TrimSuffix(out, ".jsonl") + fmt.Sprintf(".rank-%05d-of-00002.jsonl", r)
}

// rankTarget reads the address rank r serves from its file_sd file.
func rankTarget(t *testing.T, out string, r int) string {
	t.Helper()
	b, err := os.ReadFile(rankOutput(out, r) + ".metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	var groups []struct{ Targets []string }
	if err := json.Unmarshal(b, &groups); err != nil || len(groups) != 1 || len(groups[0].Targets) != 1 {
		t.Fatalf("rank %d's target file %s: %v", r, b, err)
	}
	return groups[0].Targets[0]
}

// testSizedConfig writes the shipped prometheus.yml and qa-shard.rules.yml
// into dir with 1-second intervals and every for: cut to 3 seconds.
func testSizedConfig(t *testing.T, dir string) {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "configs", "prometheus")
	for name, edits := range map[string][][2]string{
		"prometheus.yml": {
			{`(?m)^(\s*(scrape|evaluation)_interval:).*$`, "${1} 1s"},
			{`(?m)^(\s*refresh_interval:).*$`, "${1} 1s"},
			{`(?m)^(\s*scrape_timeout:).*$`, "${1} 1s"},
		},
		"qa-shard.rules.yml": {{`(?m)^(\s*for:).*$`, "${1} 3s"}},
	} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, e := range edits {
			re := regexp.MustCompile(e[0])
			if !re.MatchString(s) {
				t.Fatalf("%s has nothing matching %s: the test's edits no longer fit it", name, e[0])
			}
			s = re.ReplaceAllString(s, e[1])
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// promAPI queries a Prometheus server's HTTP API.
type promAPI struct{ base string }

// startPrometheus runs Prometheus on a free loopback port with dir's
// prometheus.yml, until the test ends.
func startPrometheus(t *testing.T, prom, dir string) promAPI {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var log bytes.Buffer
	cmd := exec.Command(prom, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait() // killed: its exit status says nothing
		if t.Failed() {
			t.Logf("Prometheus's log:\n%s", log.String())
		}
	})
	api := promAPI{base: "http://" + addr}
	api.waitFor(t, "Prometheus ready", func() (bool, string) {
		resp, err := http.Get(api.base + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	return api
}

// waitFor polls ok every 200 ms until it holds, failing after 90 s with
// what it last saw. Scrapes and rule evaluations happen on Prometheus's
// clock, so this waits for an outcome; it asserts nothing about time.
func (p promAPI) waitFor(t *testing.T, what string, ok func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		done, last := ok()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s; last: %s", what, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// result runs an instant query and returns its vector.
func (p promAPI) result(query string) ([]struct {
	Metric map[string]string
	Value  [2]any
}, error) {
	resp, err := http.Get(p.base + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("query %s: status %s", query, r.Status)
	}
	return r.Data.Result, nil
}

// value is the single sample of query.
func (p promAPI) value(query string) (float64, error) {
	res, err := p.result(query)
	if err != nil {
		return 0, err
	}
	if len(res) != 1 {
		return 0, fmt.Errorf("%d series", len(res))
	}
	s, _ := res[0].Value[1].(string)
	return strconv.ParseFloat(s, 64)
}

// count is how many series query returns.
func (p promAPI) count(query string) (int, error) {
	res, err := p.result(query)
	return len(res), err
}

// alerts lists the firing alerts as "name instance".
func (p promAPI) alerts() ([]string, error) {
	resp, err := http.Get(p.base + "/api/v1/alerts")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Alerts []struct {
				Labels map[string]string
				State  string
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	var out []string
	for _, a := range r.Data.Alerts {
		if a.State == "firing" {
			out = append(out, a.Labels["alertname"]+" "+a.Labels["instance"])
		}
	}
	return out, nil
}

// dashboardQueries evaluates every query of configs/grafana/qa-shard.json
// ($job and $rank matching anything) on the running Prometheus: each must
// succeed, and each must return series, except those that are empty on a
// healthy CPU run by design: the GPU panels (no GPU here), failures (none
// happened) and ranks not answering (all answer).
func dashboardQueries(t *testing.T, api promAPI) {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "configs", "grafana", "qa-shard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ RefID, Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	emptyHere := func(expr string) bool {
		return strings.Contains(expr, "qa_shard_gpu_") || strings.Contains(expr, "qa_shard_failures_total") || strings.Contains(expr, "== 0")
	}
	var checked, nonEmpty int
	for _, p := range d.Panels {
		for _, q := range p.Targets {
			expr := strings.NewReplacer("$job", "qa-shard", "$rank", ".*").Replace(q.Expr)
			checked++
			if emptyHere(expr) {
				if _, err := api.count(expr); err != nil {
					t.Errorf("panel %q query %s: %v", p.Title, q.RefID, err)
				}
				continue
			}
			nonEmpty++
			api.waitFor(t, fmt.Sprintf("panel %q query %s to return series", p.Title, q.RefID), func() (bool, string) {
				n, err := api.count(expr)
				return err == nil && n > 0, fmt.Sprintf("%s: %d series (%v)", expr, n, err)
			})
		}
	}
	t.Logf("dashboard: %d queries evaluated, %d returned series (the others are the GPU, failure and not-answering ones, empty on a healthy CPU run)", checked, nonEmpty)
}
