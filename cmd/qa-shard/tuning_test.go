package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tunedDevices are simulated replicas with a known best batch in
// simulated time (virtual: they do not sleep): 2 ms per batch and 10 us
// per token, every doubling beyond 3072 tokens doubling a token's cost,
// so 3072 tokens (8 rows of 384) run fastest.
const tunedDevices = "sim:2:rate=100000:overhead=2ms:cliff=3072:cliff-factor=2:virtual"

// tunedRate is the tokens per second of full batches of b tokens on
// tunedDevices: 2 ms a batch, 10 us a token, a token's cost doubled by
// every doubling beyond 3072 tokens, where the rate is at its best.
func tunedRate(b int) float64 {
	perToken := 1 / 100000.0
	if b > 3072 {
		perToken *= math.Pow(2, math.Log2(float64(b)/3072))
	}
	return float64(b) / (0.002 + float64(b)*perToken)
}

// writeLongCorpus writes n documents of 900 to 1100 words: mostly full
// windows, so the batch shapes are those the budget allows.
func writeLongCorpus(t *testing.T, n int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 5))
	var lines []string
	for i := range n {
		ws := make([]string, 900+r.IntN(200))
		for j := range ws {
			ws[j] = corpusWords[r.IntN(len(corpusWords))]
		}
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("d%d", i), "context": strings.Join(ws, " ")})
		lines = append(lines, string(b))
	}
	return writeLines(t, lines...)
}

// tunedRun runs with the budget measured (no --max-batch-tokens), the
// search allowed the whole run (--tune-share 100: these runs are short)
// unless extra says otherwise.
func tunedRun(t *testing.T, in string, extra ...string) ([]byte, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	args := append([]string{"--model", model(t, "tiny"), "--input", in, "--question", "Who founded the company?",
		"--devices", tunedDevices, "--output", out, "--tune-share", "100"}, extra...)
	code, stderr := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b, stderr
}

// summaryShape is the batch shape the run's summary reports (JSON logs:
// the summary line's batch_shape).
func summaryShape(t *testing.T, stderr string) string {
	t.Helper()
	s := find(jsonLines(t, stderr), "summary")
	if shapes, ok := s["batch_shape"].([]any); ok && len(shapes) == 1 {
		return fmt.Sprint(shapes[0])
	}
	t.Fatalf("no batch shape in the summary %v:\n%s", s, stderr)
	return ""
}

// TestTunedRunCachesItsChoice: a run with the defaults finds a batch
// within 10% of the devices' best rate, says so in its summary and caches
// it; the next run starts there without searching; both answer byte for
// byte as a run pinned to one window per batch. (Which of 1536 and 3072
// tokens, 6% apart, the search settles on depends on the batches the
// machine's load cuts part-full; package tune's tests, whose batches no
// load shapes, hold the search to the best exactly.)
func TestTunedRunCachesItsChoice(t *testing.T) {
	in := writeLongCorpus(t, 150)
	cache := filepath.Join(t.TempDir(), "tuning.json")
	first, stderr := tunedRun(t, in, "--tune-cache", cache)
	s := summaryShape(t, stderr)
	var found int
	if _, err := fmt.Sscanf(s, "sim: 2 sessions, %d tokens per batch (measured", &found); err != nil || !strings.Contains(s, "(measured") {
		t.Fatalf("first run: %q, want a shape measured", s)
	}
	if r, best := tunedRate(found), tunedRate(3072); r < 0.9*best {
		t.Fatalf("first run: %q: %.0f%% of the best batch's rate (3072 tokens), want at least 90%%", s, 100*r/best)
	}
	var f struct {
		Entries []struct {
			Budget int `json:"max_batch_tokens"`
		} `json:"entries"`
	}
	if b, err := os.ReadFile(cache); err != nil || json.Unmarshal(b, &f) != nil || len(f.Entries) != 1 || f.Entries[0].Budget != found {
		t.Fatalf("cache after the first run: %+v (%v), want the %d tokens found", f, err, found)
	}
	second, stderr := tunedRun(t, in, "--tune-cache", cache)
	if s := summaryShape(t, stderr); !strings.HasPrefix(s, fmt.Sprintf("sim: 2 sessions, %d tokens per batch (cache", found)) || strings.Contains(s, "searching took") {
		t.Fatalf("second run: %q, want the cached %d tokens without a search", s, found)
	}
	_, pinned, _ := simRun(t, in, "sim:1", "--max-batch-tokens", "8")
	if !bytes.Equal(first, pinned) || !bytes.Equal(second, pinned) {
		t.Fatal("answers depend on the batch shape")
	}
}

// TestTuningCacheProblems: a corrupt cache is ignored with a warning and
// rewritten; pinned runs neither search nor write it; --tune-cache none
// writes nothing; a run shorter than the search completes.
func TestTuningCacheProblems(t *testing.T) {
	in := writeLongCorpus(t, 150)
	cache := filepath.Join(t.TempDir(), "tuning.json")
	if err := os.WriteFile(cache, []byte(`{"version": 1, "entries": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr := tunedRun(t, in, "--tune-cache", cache)
	if !strings.Contains(stderr, "tuning cache ignored") || !strings.Contains(stderr, "corrupt") {
		t.Fatalf("no warning about the corrupt cache:\n%s", stderr)
	}
	if b, _ := os.ReadFile(cache); !json.Valid(b) {
		t.Fatalf("the corrupt cache was not rewritten: %s", b)
	}

	pinnedCache := filepath.Join(t.TempDir(), "pinned.json")
	_, stderr = tunedRun(t, in, "--tune-cache", pinnedCache, "--max-batch-tokens", "1536")
	if s := summaryShape(t, stderr); !strings.HasPrefix(s, "sim: 2 sessions, 1536 tokens per batch (pinned") {
		t.Fatalf("--max-batch-tokens 1536: %q", s)
	}
	if _, err := os.Stat(pinnedCache); !os.IsNotExist(err) {
		t.Fatalf("a pinned run wrote the cache (%v)", err)
	}

	off := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "qa-shard", "tuning.json")
	os.Remove(off)
	_, stderr = tunedRun(t, in, "--tune-cache", "none")
	if _, err := os.Stat(off); !os.IsNotExist(err) || !strings.Contains(summaryShape(t, stderr), "(measured") {
		t.Fatalf("--tune-cache none: cache %v, summary %q", err, summaryShape(t, stderr))
	}

	short := writeLongCorpus(t, 2)
	got, stderr := tunedRun(t, short, "--tune-cache", filepath.Join(t.TempDir(), "short.json"))
	if s := summaryShape(t, stderr); !strings.Contains(s, "(unfinished") {
		t.Fatalf("two documents: %q, want the search unfinished", s)
	}
	if _, want, _ := simRun(t, short, "sim:1", "--max-batch-tokens", "8"); !bytes.Equal(got, want) {
		t.Fatal("a run shorter than the search answered differently")
	}
}

// TestSearchKeepsToItsShare: with the default --tune-share (2%) the
// search of a 150-document run stops early, says so (at debug level: the
// start line and the summary say it at info), keeps the best shape found,
// caches the search as far as it got, and answers as a pinned run; the
// next run (with -v) continues that search, and says so at start; at the default
// level the search's routine lines are not logged.
func TestSearchKeepsToItsShare(t *testing.T) {
	in := writeLongCorpus(t, 150)
	cache := filepath.Join(t.TempDir(), "tuning.json")
	got, stderr := tunedRun(t, in, "--tune-cache", cache, "--tune-share", "2", "--log-level", "debug")
	if s := summaryShape(t, stderr); !strings.Contains(s, "(partly measured: the search stopped at its share of the run") {
		t.Fatalf("summary shape %q, want the search stopped at its share", s)
	}
	if !strings.Contains(stderr, "search stopped at its share of the run") {
		t.Fatalf("no log line about the search stopping:\n%s", stderr)
	}
	var f struct {
		Entries  []json.RawMessage `json:"entries"`
		Searches []struct {
			Runs    int `json:"runs"`
			Batches int `json:"batches"`
		} `json:"searches"`
	}
	if b, err := os.ReadFile(cache); err != nil || json.Unmarshal(b, &f) != nil || len(f.Entries) != 0 || len(f.Searches) != 1 || f.Searches[0].Runs != 1 || f.Searches[0].Batches == 0 {
		t.Fatalf("cache after a search cut short: %+v (%v); want the search as far as it got, no choice", f, err)
	}
	if _, want, _ := simRun(t, in, "sim:1", "--max-batch-tokens", "8"); !bytes.Equal(got, want) {
		t.Fatal("a search cut short answered differently")
	}
	_, stderr = tunedRun(t, in, "--tune-cache", cache, "--tune-share", "2", "-v") // -v is --log-level debug
	shape := fmt.Sprint(find(jsonLines(t, stderr), "starting")["shape"])
	if !strings.Contains(shape, "continuing the search of 1 earlier run") || !strings.Contains(stderr, "continuing the search the cache holds") {
		t.Fatalf("the second run does not continue the cached search: starting shape %s\n%s", shape, stderr)
	}
	_, stderr = tunedRun(t, in, "--tune-cache", cache, "--tune-share", "2")
	for _, routine := range []string{"continuing the search the cache holds", "search stopped at its share of the run:", "layout measured"} {
		if strings.Contains(stderr, `"msg":"`+routine) {
			t.Errorf("the search logs %q at the default level:\n%s", routine, stderr)
		}
	}
}
