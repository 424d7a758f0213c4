// Package docs_test checks that docs/ARCHITECTURE.md describes the code as
// it is: its package table is rebuilt from `go list`, and its table of
// pipeline stages names files and functions that exist.
package docs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite ARCHITECTURE.md's package table from the code")

const (
	doc    = "ARCHITECTURE.md"
	module = "qa-shard"
)

// thirdParty names the modules outside the standard library the way the
// table's imports column does; an import of a module not listed here
// fails the test until it is given a name.
var thirdParty = []struct{ module, name string }{
	{"github.com/NVIDIA/go-nvml", "go-nvml"},
	{"github.com/klauspost/compress", "klauspost/compress"},
	{"github.com/nlpodyssey/gopickle", "gopickle"},
	{"github.com/nlpodyssey/safetensors", "nlpodyssey/safetensors"},
	{"github.com/parquet-go/parquet-go", "parquet-go"},
	{"github.com/prometheus/client_golang", "client_golang"},
	{"github.com/prometheus/client_model", "client_model"},
	{"github.com/prometheus/common", "prometheus/common"},
	{"github.com/spf13/pflag", "pflag"},
	{"github.com/x448/float16", "x448/float16"},
	{"github.com/yalue/onnxruntime_go", "onnxruntime_go"},
	{"go.uber.org/zap", "zap"},
	{"go.yaml.in/yaml/v3", "yaml"},
	{"golang.org/x/sync", "x/sync"},
	{"golang.org/x/sys", "x/sys"},
	{"golang.org/x/term", "x/term"},
	{"golang.org/x/text", "x/text"},
	{"google.golang.org/protobuf", "protobuf"},
}

// goPackage is what `go list -json` says of a package that the table needs.
type goPackage struct {
	ImportPath, Doc   string
	GoFiles, CgoFiles []string
	Imports           []string
}

// row is one line of the package table: the package (relative to the
// module), its job (the first sentence of its package comment, as `go
// list` reports it) and its imports (the project's packages, then the
// third-party modules by short name; "stdlib" when there are none). Test
// files do not count.
type row struct{ name, job, imports string }

func (r row) String() string { return fmt.Sprintf("| `%s` | %s | %s |", r.name, r.job, r.imports) }

// fromCode lists the packages that have non-test Go files.
func fromCode(t *testing.T) []row {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var rows []row
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p goPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if len(p.GoFiles)+len(p.CgoFiles) == 0 {
			continue // tests only, like this one
		}
		r, err := rowOf(p)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

func rowOf(p goPackage) (row, error) {
	name := strings.TrimPrefix(p.ImportPath, module+"/")
	if strings.Contains(p.Doc, "|") {
		return row{}, fmt.Errorf("%s: the package comment's first sentence has a '|', which would break the table", name)
	}
	var project, modules []string
	for _, imp := range p.Imports {
		if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
			project = append(project, rel)
			continue
		}
		if !strings.Contains(strings.Split(imp, "/")[0], ".") {
			continue // the standard library
		}
		short := ""
		for _, m := range thirdParty {
			if imp == m.module || strings.HasPrefix(imp, m.module+"/") {
				short = m.name
			}
		}
		if short == "" {
			return row{}, fmt.Errorf("%s imports %s: give its module a short name in thirdParty", name, imp)
		}
		if !slices.Contains(modules, short) {
			modules = append(modules, short)
		}
	}
	slices.Sort(project)
	slices.Sort(modules)
	imports := strings.Join(append(project, modules...), ", ")
	if imports == "" {
		imports = "stdlib"
	}
	return row{name: name, job: p.Doc, imports: imports}, nil
}

var tableRow = regexp.MustCompile("^\\| `([^`]+)` \\| (.*) \\| ([^|]*) \\|$")

// packageTable finds the table under "## Packages": the lines of its rows
// (first and last line index, exclusive) and the rows.
func packageTable(t *testing.T, lines []string) (first, last int, rows []row) {
	t.Helper()
	head := slices.Index(lines, "## Packages")
	if head < 0 {
		t.Fatalf("%s has no \"## Packages\" section", doc)
	}
	first = slices.Index(lines[head:], "| --- | --- | --- |")
	if first < 0 {
		t.Fatalf("%s: no table under \"## Packages\"", doc)
	}
	first += head + 1
	for last = first; last < len(lines) && strings.HasPrefix(lines[last], "|"); last++ {
		m := tableRow.FindStringSubmatch(lines[last])
		if m == nil {
			t.Fatalf("%s line %d is not a package row: %s", doc, last+1, lines[last])
		}
		rows = append(rows, row{name: m[1], job: m[2], imports: m[3]})
	}
	return first, last, rows
}

// TestPackageTable: ARCHITECTURE.md's package table is the code's: every
// package with non-test Go files has one row, whose job is its package
// comment's first sentence and whose imports are what it imports. `go
// test ./docs -update` rewrites the table (rows keep their order; new
// packages go last).
func TestPackageTable(t *testing.T) {
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	first, last, documented := packageTable(t, lines)
	code := fromCode(t)
	if *update {
		rewrite(t, lines, first, last, documented, code)
		return
	}
	inCode := map[string]row{}
	for _, r := range code {
		inCode[r.name] = r
	}
	seen := map[string]bool{}
	for _, d := range documented {
		c, ok := inCode[d.name]
		switch {
		case seen[d.name]:
			t.Errorf("%s: package %s has two rows", doc, d.name)
		case !ok:
			t.Errorf("%s: package %s is not in the code", doc, d.name)
		default:
			if d.job != c.job {
				t.Errorf("%s: %s's job\n  table: %s\n  code:  %s", doc, d.name, d.job, c.job)
			}
			if d.imports != c.imports {
				t.Errorf("%s: %s's imports\n  table: %s\n  code:  %s", doc, d.name, d.imports, c.imports)
			}
		}
		seen[d.name] = true
	}
	for _, c := range code {
		if !seen[c.name] {
			t.Errorf("%s: no row for package %s:\n%s", doc, c.name, c)
		}
	}
	if t.Failed() {
		t.Log("go test ./docs -update rewrites the table from the code")
	}
}

func rewrite(t *testing.T, lines []string, first, last int, documented, code []row) {
	t.Helper()
	byName := map[string]row{}
	for _, r := range code {
		byName[r.name] = r
	}
	var body []string
	for _, d := range documented {
		if r, ok := byName[d.name]; ok {
			body = append(body, r.String())
			delete(byName, d.name)
		}
	}
	for _, r := range code {
		if _, ok := byName[r.name]; ok {
			body = append(body, r.String())
		}
	}
	out := slices.Concat(lines[:first], body, lines[last:])
	if err := os.WriteFile(doc, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

var stageRow = regexp.MustCompile("^\\| ([^|`]+) \\| `([^`]+)` \\| (.+) \\|$")

// TestStageFiles: every row of the table of pipeline stages names a file
// that exists and declares the functions, methods and types its last
// column names (`Name` or `Type.Method`).
func TestStageFiles(t *testing.T) {
	section := docSection(t, "Pipeline stages and their files")
	n := 0
	for line := range strings.SplitSeq(section, "\n") {
		m := stageRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		src, err := os.ReadFile(filepath.Join("..", m[2]))
		if err != nil {
			t.Errorf("stage %q: %v", m[1], err)
			continue
		}
		for _, name := range regexp.MustCompile("`([A-Za-z_][\\w.]*)`").FindAllStringSubmatch(m[3], -1) {
			if !declares(src, name[1]) {
				t.Errorf("stage %q: %s declares no %s", m[1], m[2], name[1])
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s: the table of pipeline stages has no rows", doc)
	}
}

// declares reports whether Go source declares name: a function or type
// (`Name`) or a method (`Type.Method`).
func declares(src []byte, name string) bool {
	var re string
	if typ, method, ok := strings.Cut(name, "."); ok {
		re = `(?m)^func \(\w+ \*?` + regexp.QuoteMeta(typ) + `(\[[^\]]*\])?\) ` + regexp.QuoteMeta(method) + `[\[(]`
	} else {
		re = `(?m)^(func ` + regexp.QuoteMeta(name) + `[\[(]|type ` + regexp.QuoteMeta(name) + `\b)`
	}
	return regexp.MustCompile(re).Match(src)
}

var mapRow = regexp.MustCompile("^\\| `([^`]+)/` \\| (.+) \\|$")

// TestMap: the map that opens ARCHITECTURE.md names what exists. Every
// row of its table of the top level is a folder, every top-level folder
// that holds a package has a row, and every path it names (a backquoted
// name with a slash, such as `scheduler/write.go` or `commands/merge`)
// exists.
func TestMap(t *testing.T) {
	section := docSection(t, "Map")
	rows := map[string]bool{}
	for line := range strings.SplitSeq(section, "\n") {
		if m := mapRow.FindStringSubmatch(line); m != nil {
			rows[m[1]] = true
			if fi, err := os.Stat(filepath.Join("..", m[1])); err != nil || !fi.IsDir() {
				t.Errorf("the map has a row for %s/, which is not a folder", m[1])
			}
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s: the map has no table of the top level", doc)
	}
	for _, r := range fromCode(t) {
		if top, _, _ := strings.Cut(r.name, "/"); !rows[top] {
			t.Errorf("the map has no row for %s/ (package %s)", top, r.name)
		}
	}
	for _, m := range regexp.MustCompile("`([^`\\s]*/[^`\\s]*)`").FindAllStringSubmatch(section, -1) {
		path := strings.TrimSuffix(m[1], "/...") // x/...: x and every package below it
		if strings.ContainsAny(path, "*?[") {
			continue
		}
		if _, err := os.Stat(filepath.Join("..", path)); err != nil {
			t.Errorf("the map names %s, which does not exist", path)
		}
	}
}

// docSection is the text of ARCHITECTURE.md's section "## name", up to
// the next section.
func docSection(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## "+name+"\n")
	if !ok {
		t.Fatalf("%s has no \"## %s\" section", doc, name)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}
