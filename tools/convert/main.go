// Command convert rewrites a JSONL corpus as gzip or zstd JSONL or as
// Parquet, by the output's extension, for trying qa-shard's input formats
// (and the benchmark). Parquet columns take their types from the first
// record: strings, integers, numbers and booleans as such, anything else
// as JSON text; every column is optional.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/corpus"
)

func main() {
	in := flag.String("in", "", "JSONL input")
	out := flag.String("out", "", "output: .jsonl.gz, .jsonl.zst (compressed text) or .parquet")
	every := flag.Int("every", 0, "start a new gzip member or zstd frame every this many bytes of text (0: one)")
	rows := flag.Int("rows-per-group", 10000, "Parquet rows per row group")
	flag.Parse()
	if err := convert(*in, *out, *every, *rows); err != nil {
		fmt.Fprintln(os.Stderr, "convert:", err)
		os.Exit(1)
	}
}

func convert(in, out string, every, rowsPerGroup int) error {
	if in == "" || out == "" {
		return fmt.Errorf("-in and -out are required")
	}
	text, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	if !strings.HasSuffix(out, ".parquet") {
		return corpus.WriteText(out, text, every)
	}
	var recs []map[string]json.RawMessage
	sc := bufio.NewScanner(strings.NewReader(string(text)))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		recs = append(recs, m)
	}
	if len(recs) == 0 {
		return fmt.Errorf("%s has no records", in)
	}
	keys := make([]string, 0, len(recs[0]))
	for k := range recs[0] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fields := make([]reflect.StructField, len(keys))
	for i, k := range keys {
		fields[i] = reflect.StructField{Name: "F" + strconv.Itoa(i), Type: reflect.PointerTo(goType(recs[0][k])),
			Tag: reflect.StructTag("parquet:" + strconv.Quote(k+",optional"))}
	}
	typ := reflect.StructOf(fields)
	rows := make([]any, len(recs))
	for r, m := range recs {
		v := reflect.New(typ)
		for i, k := range keys {
			raw, ok := m[k]
			if !ok || string(raw) == "null" {
				continue
			}
			p := reflect.New(fields[i].Type.Elem())
			if p.Elem().Kind() == reflect.String && (len(raw) == 0 || raw[0] != '"') {
				p.Elem().SetString(string(raw))
			} else if err := json.Unmarshal(raw, p.Interface()); err != nil {
				return fmt.Errorf("record %d field %s: %w", r+1, k, err)
			}
			v.Elem().Field(i).Set(p)
		}
		rows[r] = v.Interface()
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[any](f, parquet.SchemaOf(reflect.New(typ).Interface()), parquet.Compression(&parquet.Zstd))
	for len(rows) > 0 {
		n := min(rowsPerGroup, len(rows))
		if _, err := w.Write(rows[:n]); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		rows = rows[n:]
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}

// goType is the column type the first record's value asks for.
func goType(raw json.RawMessage) reflect.Type {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "true" || s == "false":
		return reflect.TypeFor[bool]()
	case len(s) > 0 && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')):
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return reflect.TypeFor[int64]()
		}
		return reflect.TypeFor[float64]()
	}
	return reflect.TypeFor[string]()
}
