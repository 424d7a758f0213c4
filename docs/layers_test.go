package docs_test

import (
	"bufio"
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// layer is one row of the table of layers in ARCHITECTURE.md's map: its
// rank (0 the ground; -1 outside the layers) and the packages it holds,
// each a path relative to the module or "x/..." for x and every package
// below it.
type layer struct {
	name     string
	rank     int
	patterns []string
}

// layers reads the table of layers from the map.
func layers(t *testing.T) []layer {
	t.Helper()
	return floors(t, "Map", "L")
}

// floors reads a table of floors from a section of ARCHITECTURE.md: rows
// "| <letter><rank> | `pkg`, ... | what |", and "| outside | ... |".
func floors(t *testing.T, section, letter string) []layer {
	t.Helper()
	row := regexp.MustCompile(`^\| (` + letter + `(\d)|outside) \| ([^|]+) \| [^|]+ \|$`)
	var ls []layer
	for line := range strings.SplitSeq(docSection(t, section), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		l := layer{name: m[1], rank: -1}
		if m[2] != "" {
			l.rank, _ = strconv.Atoi(m[2])
		}
		for _, p := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[3], -1) {
			l.patterns = append(l.patterns, p[1])
		}
		ls = append(ls, l)
	}
	if len(ls) < 2 {
		t.Fatalf("%s: section %s has no table of floors (rows \"| %s0 | `pkg` | ... |\")", doc, section, letter)
	}
	return ls
}

// layerOf is the layer whose pattern names pkg (relative to the module);
// ok is false when none does.
func layerOf(ls []layer, pkg string) (layer, bool) {
	for _, l := range ls {
		for _, p := range l.patterns {
			if base, ok := strings.CutSuffix(p, "/..."); ok && (pkg == base || strings.HasPrefix(pkg, base+"/")) || pkg == p {
				return l, true
			}
		}
	}
	return layer{}, false
}

// projectImports lists every package of the module with the project
// packages its non-test files import (relative to the module), as `go
// list -deps` finds them from ./... .
func projectImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.Bytes())
	}
	imports := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg, ok := strings.CutPrefix(fields[0], module+"/")
		if !ok {
			continue // the standard library and other modules
		}
		imports[pkg] = []string{}
		for _, imp := range fields[1:] {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports[pkg] = append(imports[pkg], rel)
			}
		}
	}
	return imports
}

// TestLayers: the table of layers in ARCHITECTURE.md's map is the code's.
// Every package of the module is in one layer (or outside them: the tools
// and this test), and every import of its non-test files points down, or
// sideways within its layer: never up, never into what is outside the
// layers. Two rules are stricter than that: internal/ (L0) imports no
// package of the project outside internal/, and a command (a package of
// commands/) imports no other command: commands share through a lower
// layer.
func TestLayers(t *testing.T) {
	ls := layers(t)
	imports := projectImports(t)
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		l, ok := layerOf(ls, pkg)
		if !ok {
			t.Errorf("package %s is in no layer of the map: add it to the table of layers", pkg)
			continue
		}
		if l.rank < 0 {
			continue // outside the layers: imports what it needs
		}
		for _, imp := range imports[pkg] {
			il, ok := layerOf(ls, imp)
			switch {
			case !ok:
				continue // reported as a package of its own
			case il.rank < 0:
				t.Errorf("%s (%s) imports %s, which is outside the layers", pkg, l.name, imp)
			case il.rank > l.rank:
				t.Errorf("%s (%s) imports %s (%s): an import points up a layer", pkg, l.name, imp, il.name)
			case strings.HasPrefix(pkg, "internal/") && !strings.HasPrefix(imp, "internal/"):
				t.Errorf("%s imports %s: internal/ holds ground libraries, which import no package of the project outside internal/", pkg, imp)
			case strings.HasPrefix(pkg, "commands/") && strings.HasPrefix(imp, "commands/"):
				t.Errorf("%s imports %s: a command imports no other command (share through a lower layer)", pkg, imp)
			}
		}
	}
	for _, l := range ls {
		for _, p := range l.patterns {
			base := strings.TrimSuffix(p, "/...")
			if _, err := os.Stat(filepath.Join("..", base)); err != nil {
				t.Errorf("the table of layers names %s (%s), which does not exist", p, l.name)
			}
		}
	}
}

// TestTokenizerFloors: the table of the tokenizer's floors in
// ARCHITECTURE.md's Tokenizer section is the code's: every package under
// tokenizer/ is on one floor, listed by name, and none imports a package
// of tokenizer/ on a floor above its own.
func TestTokenizerFloors(t *testing.T) {
	fs := floors(t, "Tokenizer", "T")
	imports := projectImports(t)
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		if pkg != "tokenizer" && !strings.HasPrefix(pkg, "tokenizer/") {
			continue
		}
		f, ok := layerOf(fs, pkg)
		if !ok {
			t.Errorf("package %s is on no floor of the Tokenizer section's table", pkg)
			continue
		}
		for _, imp := range imports[pkg] {
			if imp != "tokenizer" && !strings.HasPrefix(imp, "tokenizer/") {
				continue // the layers of the map hold these
			}
			if fi, ok := layerOf(fs, imp); ok && fi.rank > f.rank {
				t.Errorf("%s (%s) imports %s (%s): an import points up a floor", pkg, f.name, imp, fi.name)
			}
		}
	}
	for _, f := range fs {
		for _, p := range f.patterns {
			if _, ok := imports[p]; !ok {
				t.Errorf("the table of the tokenizer's floors names %s (%s), which is no package", p, f.name)
			}
		}
	}
}

// lintConfig is what TestLintRules reads of .golangci.yml: the depguard
// rules, each with the files it covers and the packages it allows and
// denies.
type lintConfig struct {
	Linters struct {
		Settings struct {
			Depguard struct {
				Rules map[string]struct {
					Files []string `yaml:"files"`
					Allow []string `yaml:"allow"`
					Deny  []struct {
						Pkg string `yaml:"pkg"`
					} `yaml:"deny"`
				} `yaml:"rules"`
			} `yaml:"depguard"`
		} `yaml:"settings"`
	} `yaml:"linters"`
}

// TestLintRules: every depguard rule of .golangci.yml guards something
// that exists. Each project package it allows or denies is a package of
// the module (or, as a prefix, the folder of one), and each folder its
// file globs name (`**/scheduler/*.go`) is a folder of the repository; a
// rule about a package that moved or is gone fails here instead of
// guarding nothing. The layers themselves are TestLayers's.
func TestLintRules(t *testing.T) {
	b, err := os.ReadFile("../.golangci.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg lintConfig
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf(".golangci.yml: %v", err)
	}
	rules := cfg.Linters.Settings.Depguard.Rules
	if len(rules) == 0 {
		t.Fatal(".golangci.yml has no depguard rules")
	}
	imports := projectImports(t)
	// exists: pkg (depguard's prefix, or exact with a final $) names a
	// package of the module or a folder of them; "qa-shard/" names all.
	exists := func(pkg string) bool {
		rel, ok := strings.CutPrefix(pkg, module+"/")
		if !ok || rel == "" {
			return true // the standard library, another module, or every project package
		}
		rel, exact := strings.CutSuffix(rel, "$")
		for p := range imports {
			if p == rel || !exact && strings.HasPrefix(p, strings.TrimSuffix(rel, "/")+"/") {
				return true
			}
		}
		return false
	}
	folder := regexp.MustCompile(`^!?\*\*/(.+?)/(\*\.go|\*\*(/\*\.go)?)$`)
	for _, name := range slices.Sorted(maps.Keys(rules)) {
		r := rules[name]
		var pkgs []string
		pkgs = append(pkgs, r.Allow...)
		for _, d := range r.Deny {
			pkgs = append(pkgs, d.Pkg)
		}
		for _, p := range pkgs {
			if !exists(p) {
				t.Errorf(".golangci.yml: depguard rule %s names %s, which is no package of the module", name, p)
			}
		}
		for _, f := range r.Files {
			m := folder.FindStringSubmatch(f)
			if m == nil {
				continue // $all, $test and the like
			}
			if found, _ := filepath.Glob(filepath.Join("..", m[1])); len(found) == 0 {
				t.Errorf(".golangci.yml: depguard rule %s covers %s, and %s is no folder of the repository", name, f, m[1])
			}
		}
	}
}
