// Command normtables writes unicode_tables.go of package chars (tokenizer/internal/chars):
// where Hugging Face tokenizers' Unicode tables disagree with Go's, read off
// its behaviour on every code point (the output of
// testdata/normcodepoints.mjs; the commands are at the top of that script).
// The crate unicode-normalization-alignments (NFx, StripAccents) has older
// tables than golang.org/x/text/unicode/norm and Go's package unicode; Rust's
// std (char::is_numeric), the regex crate (Whitespace's \w) and Oniguruma
// (Replace and Split regexes) have newer ones.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

func main() {
	in := flag.String("in", "build/normcodepoints.tsv", "output of normcodepoints.mjs")
	probes := flag.String("probes", "tokenizer/testdata/normprobes.json", "the probes the TSV columns follow")
	out := flag.String("o", "tokenizer/internal/chars/unicode_tables.go", "Go file to write")
	flag.Parse()
	if err := run(*in, *probes, *out); err != nil {
		fmt.Fprintln(os.Stderr, "normtables:", err)
		os.Exit(1)
	}
}

// tables collects the overrides, each sorted by code point as read.
type tables struct {
	canonical, compat []string // "0x...: \"...\","
	starters          []string
	mark              []string
	word, num         []rune            // chars Rust adds to Go's classes
	onig              map[string][]rune // class -> chars Oniguruma adds to Go's
}

func run(in, probesPath, out string) error {
	raw, err := os.ReadFile(probesPath)
	if err != nil {
		return err
	}
	var probes []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &probes); err != nil {
		return err
	}
	col := map[string]int{}
	for i, p := range probes {
		col[p.Name] = i + 1
	}
	for _, name := range []string{"NFD", "NFKD", "StripAccents", "NFD ccc>1", "NFD ccc<240", "Whitespace", "Digits", `Split \w`, `Split \d`, `Split \p{L}`, `Split \p{N}`, `Split \s`, `Split [\w]`, `Split [\d]`, `Split [\p{L}]`, `Split [\p{N}]`, `Split [\s]`} {
		if col[name] == 0 {
			return fmt.Errorf("probe %q missing from %s", name, probesPath)
		}
	}
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	t := &tables{onig: map[string][]rune{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	lines := 0
	for sc.Scan() {
		lines++
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != len(probes)+1 {
			return fmt.Errorf("line %d: %d columns, want %d", lines, len(cols), len(probes)+1)
		}
		cp, err := strconv.Atoi(cols[0])
		if err != nil {
			return err
		}
		if err := t.add(rune(cp), func(name string) string { return cols[col[name]] }); err != nil {
			return fmt.Errorf("U+%04X: %w", cp, err)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if lines < 0x10F800 {
		return fmt.Errorf("only %d code points in %s", lines, in)
	}
	return os.WriteFile(out, t.source(), 0o644)
}

func str(col string) (string, error) {
	var s string
	err := json.Unmarshal([]byte(col), &s)
	return s, err
}

func words(col string) ([]string, error) {
	var ws [][2]any
	if err := json.Unmarshal([]byte(col), &ws); err != nil {
		return nil, err
	}
	var out []string
	for _, w := range ws {
		out = append(out, w[0].(string))
	}
	return out, nil
}

func (t *tables) add(r rune, col func(string) string) error {
	c := string(r)
	entry := func(s string) string { return fmt.Sprintf("0x%04X: %q,", r, s) }
	for _, d := range []struct {
		probe string
		form  norm.Form
		dst   *[]string
	}{{"NFD", norm.NFD, &t.canonical}, {"NFKD", norm.NFKD, &t.compat}} {
		hf, err := str(col(d.probe))
		if err != nil {
			return err
		}
		if hf != d.form.String(c) {
			*d.dst = append(*d.dst, entry(hf))
		}
	}
	// A char Go gives a combining class and HF moves past neither a class 1
	// nor a class 240 mark is a starter in HF's tables.
	var buf [4]byte
	if norm.NFD.Properties(buf[:copy(buf[:], c)]).CCC() != 0 {
		p1, _ := str(col("NFD ccc>1"))
		p2, _ := str(col("NFD ccc<240"))
		if p1 == "a"+c+"\u0334" && p2 == "a\u0345"+c {
			t.starters = append(t.starters, fmt.Sprintf("0x%04X: {},", r))
		}
	}
	sa, err := str(col("StripAccents"))
	if err != nil {
		return err
	}
	if hf, gom := sa == "", r >= 0x300 && unicode.Is(unicode.M, r); hf != gom {
		t.mark = append(t.mark, fmt.Sprintf("0x%04X: %v,", r, hf))
	}
	ws, err := words(col("Whitespace"))
	if err != nil {
		return err
	}
	if r >= 0x80 {
		hf := len(ws) > 0 && ws[0] == "x"+c+"y"
		gow := unicode.In(r, unicode.L, unicode.Nl, unicode.Other_Alphabetic, unicode.M, unicode.Nd, unicode.Pc, unicode.Join_Control)
		switch {
		case hf && !gow:
			t.word = append(t.word, r)
		case !hf && gow:
			return fmt.Errorf("the regex crate's \\w leaves out a char of Go's class")
		}
	}
	ds, err := words(col("Digits"))
	if err != nil {
		return err
	}
	if r >= 0x80 {
		hf := false
		for _, w := range ds {
			hf = hf || w == c+"1"+c
		}
		switch {
		case hf && !unicode.IsNumber(r):
			t.num = append(t.num, r)
		case !hf && unicode.IsNumber(r):
			return fmt.Errorf("char::is_numeric leaves out a char of Go's unicode.N")
		}
	}
	// Oniguruma's classes: a match leaves no word (Removed).
	for _, cl := range []struct {
		probe, name string
		gow         bool
	}{
		{`Split \w`, "OnigWordExtra", unicode.In(r, unicode.L, unicode.M, unicode.Nd, unicode.Pc)},
		{`Split \d`, "OnigDigitExtra", unicode.Is(unicode.Nd, r)},
		{`Split \p{L}`, "OnigLetterExtra", unicode.Is(unicode.L, r)},
		{`Split \p{N}`, "OnigNumberExtra", unicode.Is(unicode.N, r)},
		{`Split \s`, "", unicode.Is(unicode.White_Space, r)},
		// Inside a class Oniguruma reads the Unicode tables alone; outside,
		// it takes Latin-1 chars' classes from another table (\w holds
		// ¹²³¼½¾ there).
		{`Split [\w]`, "OnigWordInClassExtra", unicode.In(r, unicode.L, unicode.M, unicode.Nd, unicode.Pc)},
		{`Split [\d]`, "OnigDigitInClassExtra", unicode.Is(unicode.Nd, r)},
		{`Split [\p{L}]`, "OnigLetterInClassExtra", unicode.Is(unicode.L, r)},
		{`Split [\p{N}]`, "OnigNumberInClassExtra", unicode.Is(unicode.N, r)},
		{`Split [\s]`, "", unicode.Is(unicode.White_Space, r)},
	} {
		ws, err := words(col(cl.probe))
		if err != nil {
			return err
		}
		hf := len(ws) == 0
		switch {
		case hf == cl.gow:
		case hf && cl.name != "":
			t.onig[cl.name] = append(t.onig[cl.name], r)
		default:
			return fmt.Errorf("%s: Oniguruma matches %v, Go's class %v: the translation cannot express it", cl.probe, hf, cl.gow)
		}
	}
	return nil
}

// table writes rs as a unicode.RangeTable.
func table(b *strings.Builder, name, doc string, rs []rune) {
	fmt.Fprintf(b, "// %s: %s\nvar %s = &unicode.RangeTable{\n", name, doc, name)
	var r16, r32 []string
	latin := 0
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 && (rs[j] != 0xFFFF) {
			j++
		}
		e := fmt.Sprintf("{0x%04X, 0x%04X, 1},", rs[i], rs[j])
		if rs[j] <= 0xFFFF {
			r16 = append(r16, e)
			if rs[j] <= 0xFF {
				latin++
			}
		} else {
			r32 = append(r32, e)
		}
		i = j + 1
	}
	for _, part := range []struct {
		field string
		rows  []string
	}{{"R16: []unicode.Range16", r16}, {"R32: []unicode.Range32", r32}} {
		if len(part.rows) > 0 {
			fmt.Fprintf(b, "%s{\n%s\n},\n", part.field, strings.Join(part.rows, "\n"))
		}
	}
	if latin > 0 {
		fmt.Fprintf(b, "LatinOffset: %d,\n", latin)
	}
	b.WriteString("}\n\n")
}

// ranges spells chars as the inside of a Go regexp class.
func ranges(rs []rune) string {
	var b strings.Builder
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		fmt.Fprintf(&b, `\x{%X}`, rs[i])
		if j > i {
			fmt.Fprintf(&b, `-\x{%X}`, rs[j])
		}
		i = j + 1
	}
	return b.String()
}

func (t *tables) source() []byte {
	var b strings.Builder
	b.WriteString("// Code generated by tools/normtables from Hugging Face tokenizers 0.23.2; DO NOT EDIT.\n\npackage chars\n\nimport \"unicode\"\n\n")
	emit := func(name, typ, doc string, entries []string) {
		fmt.Fprintf(&b, "// %s: %s\nvar %s = %s{\n", name, doc, name, typ)
		for _, e := range entries {
			b.WriteString("\t" + e + "\n")
		}
		b.WriteString("}\n\n")
	}
	emit("Canonical", "map[rune]string", "chars whose NFD in HF (unicode-normalization-alignments) differs from golang.org/x/text's.", t.canonical)
	emit("Compat", "map[rune]string", "chars whose NFKD in HF differs from golang.org/x/text's.", t.compat)
	emit("Starters", "map[rune]struct{}", "chars of combining class 0 in HF's tables and not in Go's.", t.starters)
	emit("Mark", "map[rune]bool", "chars HF's is_combining_mark (StripAccents) judges unlike Go's unicode.M.", t.mark)
	table(&b, "RustWordExtra", "chars the regex crate's \\w (Whitespace) holds beyond Go's tables (newer Unicode).", t.word)
	table(&b, "RustNumericExtra", "chars Rust's char::is_numeric (Digits) holds beyond Go's unicode.N (newer Unicode).", t.num)
	b.WriteString("// Chars Oniguruma's classes hold beyond Go's (newer Unicode), as the\n// inside of a Go regexp class.\nconst (\n")
	for _, name := range []string{"OnigWordExtra", "OnigDigitExtra", "OnigLetterExtra", "OnigNumberExtra",
		"OnigWordInClassExtra", "OnigDigitInClassExtra", "OnigLetterInClassExtra", "OnigNumberInClassExtra"} {
		fmt.Fprintf(&b, "\t%s = `%s`\n", name, ranges(t.onig[name]))
	}
	b.WriteString(")\n")
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	return src
}
