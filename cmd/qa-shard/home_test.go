//go:build testhooks

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNothingWrittenToHomeBehindTheUsersBack: eight runs sharing one
// HOME (the ranks of a job on a cluster's shared home) all complete, and
// the only thing in that HOME afterwards is qa-shard's own documented
// tuning cache: ONNX Runtime's telemetry store
// (~/.cache/Microsoft/DeveloperTools/.onnxruntime, a SQLite database every
// run used to rewrite) is not created.
func TestNothingWrittenToHomeBehindTheUsersBack(t *testing.T) {
	home := t.TempDir()
	in := writeCorpus(t, 6, 81)
	var cmds []*exec.Cmd
	for range 8 {
		out := filepath.Join(t.TempDir(), "answers.jsonl")
		cmd := exec.Command(os.Args[0], "--ort-lib", ortLib, "--log-format", "json", "--model", model(t, "tiny"), "--devices", "cpu:1",
			"--input", in, "--question", "Who?", "--output", out)
		cmd.Env = []string{envAsMain + "=1", "HOME=" + home, "PATH=" + os.Getenv("PATH")}
		must(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("run %d: %v", i, err)
		}
	}
	var found []string
	must(t, filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
		if err == nil && p != home {
			found = append(found, strings.TrimPrefix(p, home+"/"))
		}
		return err
	}))
	for _, f := range found {
		if f != ".cache" && f != ".cache/qa-shard" && !strings.HasPrefix(f, ".cache/qa-shard/tuning.json") {
			t.Errorf("a run wrote %s into HOME", f)
		}
	}
}

// TestRunsWithAHomeItCannotWrite: a HOME that nothing can be created in
// (its parent is a regular file, so even root gets ENOTDIR, where a
// chmod would not stop root) costs the run nothing but its tuning cache:
// it exits 0 with every answer, and says why the cache was not kept.
func TestRunsWithAHomeItCannotWrite(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "not-a-directory")
	must(t, os.WriteFile(blocker, nil, 0o444))
	home := filepath.Join(blocker, "home")
	in := writeCorpus(t, 6, 82)
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	cmd := exec.Command(os.Args[0], "--ort-lib", ortLib, "--log-format", "json", "--model", model(t, "tiny"), "--devices", "cpu:1",
		"--input", in, "--question", "Who?", "--output", out)
	cmd.Env = []string{envAsMain + "=1", "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	stderr, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run with an unwritable HOME: %v\n%s", err, stderr)
	}
	ids := map[any]bool{}
	for _, r := range readRecords(t, out) {
		if r["error"] != nil {
			t.Errorf("error record: %v", r)
		}
		ids[r["id"]] = true
	}
	if len(ids) != 6 {
		t.Errorf("answers for %d documents, want 6", len(ids))
	}
}
