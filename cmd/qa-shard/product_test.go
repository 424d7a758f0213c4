package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProductLinksNoHooks: the product binary, built without tags as make
// build builds it, has no test hook (its symbols have no job.TestHook or merge.TestStep),
// and links the simulated devices (worker/sim) only through the benchmark
// harness (commands/bench: bench --scheduling, --inputs), as depguard's
// rule simulated-devices says of the code. The same check on a build with
// the tag testhooks finds the hook, so it can see one.
func TestProductLinksNoHooks(t *testing.T) {
	dir := t.TempDir()
	hook := regexp.MustCompile(`(?m) qa-shard/(job\.TestHook|commands/merge\.TestStep)$`)
	for _, tags := range []string{"", "testhooks"} {
		bin := filepath.Join(dir, "qa-shard"+tags)
		if out, err := exec.Command("go", "build", "-tags", tags, "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build -tags %q: %v\n%s", tags, err, out)
		}
		nm, err := exec.Command("go", "tool", "nm", bin).Output()
		if err != nil {
			t.Fatalf("go tool nm: %v", err)
		}
		if has := hook.Match(nm); has != (tags == "testhooks") {
			t.Errorf("built with tags %q: test hook symbols present = %v, want %v", tags, has, !has)
		}
	}

	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var importers []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, imp := range strings.Fields(imports) {
			if imp == "qa-shard/worker/sim" {
				importers = append(importers, pkg)
			}
		}
	}
	if strings.Join(importers, " ") != "qa-shard/commands/bench" {
		t.Errorf("in the product, worker/sim is imported by %q, want by qa-shard/internal/bench alone", importers)
	}
}
