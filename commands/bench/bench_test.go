package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"qa-shard/internal/testing/testfixtures"
	"qa-shard/worker"
)

// TestWholePicture runs the benchmark on the tiny model, one repetition,
// and checks that every row of the picture is there and that its figures
// and verdicts follow from what was measured (checkPicture). It asserts no
// speed: that is what the benchmark reports.
func TestWholePicture(t *testing.T) {
	dir, lib := testfixtures.Setup(t)
	if err := worker.Init(lib); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "docs.jsonl")
	var lines []string
	for i := range 12 {
		b, _ := json.Marshal(map[string]any{"id": i, "context": strings.Repeat("Ada Lovelace founded the company in Paris. ", 10+40*i)})
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(input, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out strings.Builder
	o := options{Model: filepath.Join(dir, "tiny"), Int8Model: filepath.Join(dir, "no-such-model"), Input: input,
		Question: "Who founded the company?", Devices: "cpu", Reps: 1, RawBatches: 1, NaiveDocs: 3}
	if err := measure(ctx, &out, o); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	num := `[\d.]+`
	for _, row := range []string{
		`\| raw model, best shape \(the ceiling; fixed full windows\) \| \| ` + num + ` \| ` + num + ` \| \| \| \d+ sessions? x \d+ threads?, \d+ rows? \|`,
		`\| qa-shard previous defaults \(1 session x \d+ threads, 8192 tokens\) \| ` + num + ` \| ` + num + ` \| ` + num + ` \| ` + num + ` \| ` + num + ` \| 1 session x \d+ threads?, 8192 tokens \(pinned\) \|`,
		`\| qa-shard by hand: the best raw shape \(.+ = \d+ tokens\) \| ` + num + ` \| ` + num + ` \| 1\.000 \| ` + num + ` \| 1\.000 \| .+ \(pinned\) \|`,
		`\| qa-shard defaults, first run \(searches\) \| ` + num + ` \| ` + num + ` \| ` + num + ` \| ` + num + ` \| ` + num + ` \| .+ \((measured|unfinished)\) \|`,
		`\| qa-shard defaults, next run \(from the cache\) \| ` + num + ` \| ` + num + ` \| ` + num + ` \| ` + num + ` \| ` + num + ` \| .+ \((cache|measured|unfinished)\) \|`,
		`\| naive loop: .+ \| ` + num + ` \| ` + num + ` \| \| \| \| 1 session, 1 row \|`,
		`no int8 row: .*no-such-model does not exist`,
		`Target: defaults end to end ≥ 0\.95 of the best by hand: wall clock ` + num + ` .* (met|MISSED).* per CPU-second ` + num + ` (met|MISSED)`,
		`Tuning overhead: first run ` + num + ` s - next run ` + num + ` s = -?` + num + ` s .* \(target ≤ 3%: (met|MISSED)\)`,
		`Load average \(1 minute\) ` + num + ` before, ` + num + ` after`,
	} {
		if !regexp.MustCompile(row).MatchString(text) {
			t.Errorf("no line matching %s in\n%s", row, text)
		}
	}
	checkPicture(t, text, len(lines))
}
