//go:build testhooks

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"qa-shard/output/logits"
)

// startMerge starts qa-shard merge as a child process that prints every
// step it takes (envMergeKillAt) and SIGKILLs itself before step killAt.
func startMerge(t *testing.T, killAt int, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"merge", "--log-format", "json"}, args...)...)
	cmd.Env = append(os.Environ(), envAsMain+"=1", fmt.Sprintf("%s=%d", envMergeKillAt, killAt))
	c := &child{Cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = c.stderr
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.stdin.Close(); cmd.Process.Kill() })
	return c
}

// mergeSteps is how many steps a merge took, from its stderr.
func mergeSteps(stderr string) int { return strings.Count(stderr, "merge step ") }

// TestMergeKilledAnywhere: merges SIGKILLed before a step chosen at
// random (from a logged seed) among every step they take, into fresh
// outputs and with --overwrite over complete ones, then the same command
// again (and, when that finds an output the killed merge had put in
// place, with --overwrite), end with the answers byte-identical (JSONL)
// or row-identical (Parquet) and the logits row-identical to an
// uninterrupted merge, no temporary name left, and every rank's file as
// it was.
func TestMergeKilledAnywhere(t *testing.T) {
	r := newRankRun(t, "a.jsonl", 30, 3)
	ranks := digests(t, r.dir)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 3))
	t.Logf("seed %d", seed)
	for _, name := range []string{"m.jsonl", "m.parquet"} {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			if code, stderr := mergeCLI(t, append([]string{"--output", filepath.Join(base, name), "--logits", filepath.Join(base, "lg")}, r.files...)...); code != exitOK {
				t.Fatalf("uninterrupted merge: exit %d:\n%s", code, stderr)
			}
			wantRows, err := logits.ReadDir(filepath.Join(base, "lg"))
			must(t, err)
			out := t.TempDir()
			args := append([]string{"--output", filepath.Join(out, name), "--logits", filepath.Join(out, "lg")}, r.files...)
			// How many steps a merge takes into fresh outputs, and over
			// complete ones (more: each old output is set aside, removed).
			c := startMerge(t, -1, args...)
			if code := c.exit(); code != exitOK {
				t.Fatalf("counting merge: exit %d:\n%s", code, c.stderr)
			}
			fresh := mergeSteps(c.stderr.String())
			c = startMerge(t, -1, append(args, "--overwrite")...)
			if code := c.exit(); code != exitOK {
				t.Fatalf("counting merge --overwrite: exit %d:\n%s", code, c.stderr)
			}
			over := mergeSteps(c.stderr.String())
			t.Logf("%d steps into fresh outputs, %d over complete ones", fresh, over)
			for i := range 8 {
				cmd := args
				if i%2 == 1 {
					must(t, os.RemoveAll(filepath.Join(out, name)))
					must(t, os.RemoveAll(filepath.Join(out, "lg")))
				} else {
					cmd = append(args, "--overwrite")
				}
				steps := map[bool]int{true: fresh, false: over}[i%2 == 1]
				at := rng.IntN(steps)
				c := startMerge(t, at, cmd...)
				if code := c.exit(); code != -1 {
					t.Fatalf("kill %d before step %d of %d: exit %d, not killed:\n%s", i, at, steps, code, c.stderr)
				}
				last := c.stderr.String()[strings.LastIndex(c.stderr.String(), "merge step "):]
				if !strings.HasPrefix(last, fmt.Sprintf("merge step %d:", at)) {
					t.Fatalf("kill %d landed elsewhere than step %d: %s", i, at, last)
				}
				code, stderr := mergeCLI(t, cmd...)
				if code == exitUsage && strings.Contains(stderr, "--overwrite") {
					code, stderr = mergeCLI(t, append(cmd, "--overwrite")...)
				}
				if code != exitOK {
					t.Fatalf("the merge after kill %d (%s): exit %d:\n%s", i, strings.TrimSpace(last), code, stderr)
				}
				if name == "m.jsonl" && mustRead(t, filepath.Join(out, name)) != mustRead(t, filepath.Join(base, name)) {
					t.Fatalf("after kill %d (%s) the answers differ from an uninterrupted merge's", i, strings.TrimSpace(last))
				}
				if name == "m.parquet" && !reflect.DeepEqual(answerRecords(t, filepath.Join(out, name)), answerRecords(t, filepath.Join(base, name))) {
					t.Fatalf("after kill %d (%s) the answers' rows differ from an uninterrupted merge's", i, strings.TrimSpace(last))
				}
				if got, err := logits.ReadDir(filepath.Join(out, "lg")); err != nil || !reflect.DeepEqual(got, wantRows) {
					t.Fatalf("after kill %d (%s) the logits differ from an uninterrupted merge's (%d rows, %v)", i, strings.TrimSpace(last), len(got), err)
				}
				entries, _ := os.ReadDir(out)
				if len(entries) != 2 {
					t.Fatalf("after kill %d (%s) the folder holds %v, want %s and lg", i, strings.TrimSpace(last), entries, name)
				}
				unchanged(t, fmt.Sprintf("the ranks after kill %d", i), ranks, r.dir)
				t.Logf("killed before step %d of %d (%s); the merge after it completed identical", at, steps, strings.TrimSpace(strings.SplitN(last, ":", 2)[1]))
			}
		})
	}
}
