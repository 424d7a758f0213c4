package metrics

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"qa-shard/gpu"
	"qa-shard/internal/testing/testenv"
)

// exported is every series name (histograms' _bucket, _sum and _count
// included) and label name a run's registry serves, with a GPU reading so
// the GPU families appear.
func exported(t *testing.T) (names, labels map[string]bool) {
	t.Helper()
	r := new(Identity{Rank: 0, Host: "n1"})
	r.SetGPUSource(func() []gpu.Sample {
		return []gpu.Sample{{Index: 0, UUID: "GPU-a", At: time.Now(), UtilPercent: 50, MemUsed: 1 << 30, TempC: 60, PowerW: 300}}
	})
	r.SetDeadline(1764633600)
	r.SetInfo(Info{Version: "v", Model: "m", ONNXRuntime: "1.30.0", Devices: "cpu"})
	r.SetReplicas([]string{"gpu0"})
	o := r.Observer()
	o.BatchDone("gpu0", 1, 10, 12, time.Millisecond)
	o.Failure("gpu0", "fatal")
	fams, err := r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names, labels = map[string]bool{}, map[string]bool{"job": true, "instance": true, "le": true}
	for _, f := range fams {
		n := f.GetName()
		names[n] = true
		for _, s := range []string{"_bucket", "_sum", "_count"} {
			names[n+s] = true
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = true
			}
		}
	}
	return names, labels
}

var (
	metricName = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	byLabels   = regexp.MustCompile(`\b(?:by|without|on|ignoring)\s*\(([^)]*)\)`)
	matchers   = regexp.MustCompile(`([a-z_]+)\s*(?:=~|!=|!~|=)\s*"`)
)

// checkExpr: every qa_shard_ metric expr names is in names, every label it
// groups, matches or selects by is in labels, and every recorded series
// (level:metric:operations) it reads is in recorded (nil: not checked).
func checkExpr(t *testing.T, where, expr string, names, labels, recorded map[string]bool) {
	t.Helper()
	for _, m := range metricName.FindAllString(expr, -1) {
		switch {
		case strings.Count(m, ":") == 2 && recorded != nil && !recorded[m]:
			t.Errorf("%s reads %s, which no recording rule of configs/prometheus/qa-shard.rules.yml writes", where, m)
		case strings.HasPrefix(m, "qa_shard_") && !names[m]:
			t.Errorf("%s uses %s, which qa-shard does not export", where, m)
		}
	}
	for _, m := range byLabels.FindAllStringSubmatch(expr, -1) {
		for _, l := range strings.Split(m[1], ",") {
			if l = strings.TrimSpace(l); l != "" && !labels[l] {
				t.Errorf("%s groups or matches by label %q, which no exported series has", where, l)
			}
		}
	}
	for _, m := range matchers.FindAllStringSubmatch(expr, -1) {
		if !labels[m[1]] {
			t.Errorf("%s selects on label %q, which no exported series has", where, m[1])
		}
	}
}

// rulesFile is the shipped rules file, read.
type rulesFile struct {
	Groups []struct {
		Rules []struct {
			Record, Alert, Expr string
		}
	}
}

// TestRulesUseExportedMetrics: every qa_shard_ metric and every label the
// shipped recording and alert rules name is one qa-shard serves, so a
// renamed metric breaks this test instead of silencing an alert. (promtool
// check rules, in make prometheus-check, checks the syntax; promtool test
// rules, the behaviour.)
func TestRulesUseExportedMetrics(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "configs", "prometheus", "qa-shard.rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var file rulesFile
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	names, labels := exported(t)
	// Labels of series that are not qa-shard's: node_exporter's textfile
	// mtime and Prometheus's up.
	for _, l := range []string{"file"} {
		labels[l] = true
	}
	recorded := map[string]bool{}
	var rules int
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			rules++
			checkExpr(t, "rule "+r.Record+r.Alert, r.Expr, names, labels, nil)
			if r.Record != "" {
				recorded[r.Record] = true
			}
		}
	}
	if rules < 10 {
		t.Fatalf("read %d rules from the rules file: the layout changed?", rules)
	}
	for _, want := range []string{"rank:qa_shard_documents:rate5m", "job:qa_shard_documents:rate5m", "job:qa_shard_progress:ratio"} {
		if !recorded[want] {
			t.Errorf("no recording rule %s", want)
		}
	}
	if !names["qa_shard_gpu_throttled"] {
		t.Error("the GPU families did not appear: the check above saw no GPU metric")
	}
}
