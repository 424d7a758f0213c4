package metrics

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"qa-shard/internal/testing/testenv"
)

// dashboard is what the tests read of configs/grafana/qa-shard.json.
type dashboard struct {
	Title, UID string
	Panels     []struct {
		ID      int
		Title   string
		Targets []struct{ RefID, Expr string }
	}
	Templating struct {
		List []struct{ Name, Type string }
	}
}

func readDashboard(t *testing.T) (dashboard, rulesFile) {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	b, err := os.ReadFile(filepath.Join(root, "configs", "grafana", "qa-shard.json"))
	if err == nil {
		err = json.Unmarshal(b, &d)
	}
	if err != nil {
		t.Fatal(err)
	}
	var r rulesFile
	b, err = os.ReadFile(filepath.Join(root, "configs", "prometheus", "qa-shard.rules.yml"))
	if err == nil {
		err = yaml.Unmarshal(b, &r)
	}
	if err != nil {
		t.Fatal(err)
	}
	return d, r
}

// TestDashboardUsesExportedMetrics: every query of the Grafana dashboard
// reads only metrics and labels qa-shard serves (and Prometheus's up), and
// recorded series the shipped rules write; panels have unique ids and a
// query each; the dashboard covers what an operator looks at overnight.
func TestDashboardUsesExportedMetrics(t *testing.T) {
	d, r := readDashboard(t)
	names, labels := exported(t)
	recorded := map[string]bool{}
	for _, g := range r.Groups {
		for _, rule := range g.Rules {
			if rule.Record != "" {
				recorded[rule.Record] = true
			}
		}
	}
	if d.UID == "" || d.Title == "" {
		t.Errorf("the dashboard needs a uid and a title to import: %q, %q", d.UID, d.Title)
	}
	vars := map[string]bool{}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	for _, v := range []string{"datasource", "job", "rank"} {
		if !vars[v] {
			t.Errorf("no $%s variable", v)
		}
	}
	ids := map[int]bool{}
	var all strings.Builder
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d used twice", p.ID)
		}
		ids[p.ID] = true
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			checkExpr(t, fmt.Sprintf("panel %q query %s", p.Title, q.RefID), q.Expr, names, labels, recorded)
			all.WriteString(q.Expr + "\n")
		}
	}
	for _, want := range []string{"job:qa_shard_progress:ratio", "qa_shard_eta_seconds", "rank:qa_shard_documents:rate5m",
		"qa_shard_batches_total", "qa_shard_batch_duration_seconds_bucket", "qa_shard_failures_total", "kind=\"error\"",
		"qa_shard_queue_depth", "qa_shard_gpu_utilization_ratio", "qa_shard_gpu_memory_used_bytes", "qa_shard_gpu_power_watts",
		"qa_shard_gpu_temperature_celsius", "qa_shard_run_state", "qa_shard_last_checkpoint_timestamp_seconds", "qa_shard_info"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no panel shows %s", want)
		}
	}
}

// TestDashboardQueriesParse hands every dashboard query (its $variables
// replaced by a regex matching anything) to promtool check rules as a
// recording rule, so a query Prometheus cannot parse fails here. Without
// promtool it skips, unless CI=true or $QA_SHARD_REQUIRE_PROMTOOL is set
// (make prometheus-check sets it).
func TestDashboardQueriesParse(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		testenv.Need(t, testenv.Absent("promtool", "install Debian's prometheus (`sudo make deps`)", err), "QA_SHARD_REQUIRE_PROMTOOL")
	}
	d, _ := readDashboard(t)
	var b strings.Builder
	b.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	n := 0
	for _, p := range d.Panels {
		for _, q := range p.Targets {
			n++
			expr := strings.NewReplacer("$job", ".*", "$rank", ".*").Replace(q.Expr)
			quoted, err := json.Marshal(expr)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "      - record: dashboard:query:%d\n        expr: %s\n", n, quoted)
		}
	}
	path := filepath.Join(t.TempDir(), "dashboard.rules.yml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "check", "rules", path).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check rules on the dashboard's %d queries: %v\n%s", n, err, out)
	}
	if !strings.Contains(string(out), fmt.Sprintf("%d rules found", n)) {
		t.Errorf("promtool did not read the %d queries:\n%s", n, out)
	}
}
