package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"qa-shard/internal/errkind"
	"qa-shard/internal/filelock"
	"qa-shard/output"
)

// TestExitCodeTable: the table of docs/resume.md (which the README links
// to) is the code's (and --help prints the code's, TestHelp).
func TestExitCodeTable(t *testing.T) {
	const doc = "docs/resume.md"
	b, err := os.ReadFile("../../" + doc)
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "## Exit codes")
	if !ok {
		t.Fatalf("%s has no exit code table", doc)
	}
	rows := regexp.MustCompile(`(?m)^\| (\d+) \| (.+) \|$`).FindAllStringSubmatch(table, -1)
	if len(rows) < len(exitCodes) {
		t.Fatalf("%s's table has %d rows, the code %d", doc, len(rows), len(exitCodes))
	}
	for i, c := range exitCodes {
		code, _ := strconv.Atoi(rows[i][1])
		if meaning := strings.ReplaceAll(rows[i][2], "`", ""); code != c.code || meaning != c.meaning {
			t.Errorf("%s row %d: %d %q\n  code: %d %q", doc, i+1, code, meaning, c.code, c.meaning)
		}
	}
}

// TestExitCodeThroughWraps: the code is found however deep the error is
// wrapped, and a cause wrapped with %w keeps its own chain.
func TestExitCodeThroughWraps(t *testing.T) {
	interrupted := errkind.Mark(errkind.Resumable, errors.New("interrupted"))
	records := errkind.Mark(errkind.Records, errors.New("completed with 2 error records"))
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", interrupted)), exitInterrupted},
		{fmt.Errorf("a: %w", records), exitRecords},
		{errors.Join(records, fmt.Errorf("%w: x", errUsage)), exitUsage},
		{fmt.Errorf("x: %w", fmt.Errorf("%w: --metrics-addr: %w", errUsage, errors.New("bind"))), exitUsage},
		{errors.New("disk full"), exitInternal},
		{fmt.Errorf("x: %w", output.Fault(&os.PathError{Op: "write", Path: "a", Err: syscall.ENOSPC})), exitInterrupted},
		{fmt.Errorf("x: %w", &filelock.HeldError{Target: "a", Path: "a.lock"}), exitUsage},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// TestRunIOFailuresExit1: an input that cannot be read is an I/O failure
// (1), not a usage error. (An output folder that cannot be written is a
// usage error found before the model loads: TestUnwritableOutputBeforeModel.)
func TestRunIOFailuresExit1(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"input that fails to read", []string{"--input", "/proc/self/mem", "--output", filepath.Join(t.TempDir(), "a.jsonl")}, "input/output error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := runCLI(t, append([]string{"--model", model(t, "tiny"), "--question", "Who?", "--devices", "sim:1"}, tc.args...)...)
			if code != exitInternal || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, exitInternal, tc.want, stderr)
			}
		})
	}
}

// TestSubcommandExitCodes: version, help and bench (merge and devices
// have their own tests).
func TestSubcommandExitCodes(t *testing.T) {
	in := writeCorpus(t, 6, 9)
	bench := []string{"bench", "--model", model(t, "tiny"), "--input", in, "--ort-lib", ortLib, "--naive-docs", "2", "--reps", "1", "--raw-batches", "1"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // on standard output for 0, standard error otherwise
	}{
		{"version", []string{"version"}, exitOK, "qa-shard dev"},
		{"version with an argument", []string{"version", "1"}, exitUsage, `unexpected argument "1"`},
		{"version with a flag", []string{"version", "--bogus"}, exitUsage, "unknown flag"},
		{"help merge", []string{"help", "merge"}, exitOK, "Usage: qa-shard merge"},
		{"merge --help after files", []string{"merge", "a.jsonl", "--help"}, exitOK, "--overwrite"},
		{"help for nothing", []string{"help", "frobnicate"}, exitUsage, `no subcommand "frobnicate"`},
		{"bench", append(bench, "--devices", "cpu"), exitOK, "| qa-shard defaults, next run (from the cache) |"},
		{"bench, one configuration", append(bench, "--devices", "cpu", "--max-batch-tokens", "1024"), exitOK, "| end-to-end documents/s |"},
		{"bench, every replica failing", append(bench, "--devices", "sim:1:fatal-after=0:recur"), exitInternal, "CUDA failure 700"},
		{"bench without input", []string{"bench", "--model", model(t, "tiny")}, exitUsage, "--input FILE"},
		{"bench on a folder", []string{"bench", "--model", model(t, "tiny"), "--input", t.TempDir()}, exitUsage, "is a folder"},
		{"bench with a bad flag", []string{"bench", "--scheduling=maybe"}, exitUsage, "invalid argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := capture(t, func() int { return dispatch(tc.args) })
			text := messages(t, stderr)
			if tc.code == exitOK {
				text = stdout
			}
			if code != tc.code || !strings.Contains(text, tc.want) {
				t.Errorf("exit %d, want %d with %q in:\n%s%s", code, tc.code, tc.want, stdout, stderr)
			}
		})
	}
}

// TestSentinelsHaveKinds: every exported sentinel error of the product's
// packages is declared with its kind (package errkind), so none falls to
// exit 1 because someone forgot to list it here. Package qa and the token
// values it consumes (tokenizer/tokens) are the exceptions: they import no
// project package but tokens (the task as pure functions, plain values), and
// their errors reach main only wrapped in cli.ErrUsage (settings) or as
// error records.
func TestSentinelsHaveKinds(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var bad []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && rel != "." {
			switch {
			case rel == "build", rel == "tools", strings.HasPrefix(d.Name(), "."), d.Name() == "testdata",
				strings.HasPrefix(rel, filepath.Join("internal", "test")), rel == "qa", rel == filepath.Join("tokenizer", "tokens"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() || !strings.HasPrefix(name.Name, "Err") || i >= len(vs.Values) {
						continue
					}
					call, ok := vs.Values[i].(*ast.CallExpr)
					if !ok {
						continue
					}
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
						if pkg, ok := sel.X.(*ast.Ident); ok && (pkg.Name == "errors" || pkg.Name == "fmt") {
							bad = append(bad, fmt.Sprintf("%s: %s = %s.%s(...)", rel, name.Name, pkg.Name, sel.Sel.Name))
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("sentinels without a kind (declare them with errkind.NewUser, NewResumable or NewInternal):\n%s", strings.Join(bad, "\n"))
	}
}

// TestVersionNamesTheLibrary: version and --version print the build, Go,
// the ONNX Runtime library a run would load with its version, path and
// providers, and the CPU's instruction set; --ort-lib names another
// library, and one that cannot be loaded is said so, exit 0.
func TestVersionNamesTheLibrary(t *testing.T) {
	if setupErr != nil {
		t.Fatalf("test setup: %v", setupErr)
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"version", "--ort-lib", ortLib}} {
		code, stdout, stderr := capture(t, func() int { return dispatch(args) })
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if code != exitOK || len(lines) != 5 {
			t.Fatalf("%v: exit %d, %d lines, want 0 and 5:\n%s%s", args, code, len(lines), stdout, stderr)
		}
		for i, want := range []string{"qa-shard dev", "go: go1.", "onnxruntime: 1.", "providers: cpu (a CPU build", "cpu: "} {
			if !strings.HasPrefix(lines[i], want) {
				t.Errorf("%v: line %d %q, want it to start with %q", args, i+1, lines[i], want)
			}
		}
		if !strings.Contains(lines[2], ", "+ortLib+" (") {
			t.Errorf("%v: %q does not name the library %s", args, lines[2], ortLib)
		}
	}
	missing := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	code, stdout, _ := capture(t, func() int { return dispatch([]string{"version", "--ort-lib", missing}) })
	if code != exitOK || !strings.Contains(stdout, "onnxruntime: "+missing+" (--ort-lib) cannot be loaded") {
		t.Errorf("a library that is not there: exit %d:\n%s", code, stdout)
	}
}

// TestPackageVersionChecked: started by the Python package of another
// release (QA_SHARD_PACKAGE_VERSION), the binary refuses to run, exit 2,
// naming both releases; of its own release, it runs.
func TestPackageVersionChecked(t *testing.T) {
	saved := build
	build = "0.0.9+test"
	t.Cleanup(func() { build = saved })
	t.Setenv(envPackage, "0.0.1-other")
	code, _, stderr := capture(t, func() int { return dispatch([]string{"version"}) })
	if code != exitUsage || !strings.Contains(stderr, "0.0.1-other") || !strings.Contains(stderr, "release "+strings.SplitN(build, "+", 2)[0]) {
		t.Errorf("exit %d, want %d naming both releases:\n%s", code, exitUsage, stderr)
	}
	t.Setenv(envPackage, strings.SplitN(build, "+", 2)[0])
	if code, _, stderr := capture(t, func() int { return dispatch([]string{"version"}) }); code != exitOK {
		t.Errorf("the matching release: exit %d:\n%s", code, stderr)
	}
	build = "dev" // go build without make: no release to compare
	t.Setenv(envPackage, "0.0.1-other")
	if code, _, stderr := capture(t, func() int { return dispatch([]string{"version"}) }); code != exitOK {
		t.Errorf("a dev build: exit %d:\n%s", code, stderr)
	}
}
