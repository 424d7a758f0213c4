package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/format"
	"qa-shard/internal/record"
)

// writeRun writes records 0..9 to path as a run does (two checkpoints:
// two gzip members or zstd frames, two Parquet parts) and returns the
// run's options.
func writeRun(t *testing.T, path string) Options {
	t.Helper()
	opt := Options{Answers: path, Fingerprint: fingerprint.Fingerprint{Input: "i", Model: "m"}, Keep: []string{"url"},
		Schema: record.Schema{ID: record.Int, Keep: []record.Kind{record.String}}, TopK: 2}
	out, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		writeRecord(t, out, i)
		if i == 3 {
			if err := out.Checkpoint(4); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := out.Finish(10); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return opt
}

// TestWholeConverts: answers written whole from a run's JSONL, gzip or
// zstd file, twice over (as two ranks), are in every text format the
// run's text twice, and in Parquet (records replayed) the rows a run
// writes; an existing path is refused, never opened.
func TestWholeConverts(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a.jsonl", "a.jsonl.gz", "a.jsonl.zst"}
	var opt Options
	for _, n := range names {
		opt = writeRun(t, filepath.Join(dir, n))
	}
	writeRun(t, filepath.Join(dir, "a.parquet"))
	text := strings.Join(readBack(t, filepath.Join(dir, "a.jsonl")), "\n")
	wantRows := strings.Join(readParquet(t, filepath.Join(dir, "a.parquet")), "\n")
	for _, from := range names {
		for _, to := range append(names, "a.parquet") {
			t.Run(from+" to "+to, func(t *testing.T) {
				tmp := filepath.Join(t.TempDir(), ".temporary-name")
				w, err := CreateWhole(tmp, format.Of(to), opt)
				if err != nil {
					t.Fatal(err)
				}
				for range 2 {
					if format.Of(to) == format.Parquet {
						r, err := OpenText(filepath.Join(dir, from))
						if err != nil {
							t.Fatal(err)
						}
						err = record.Replay(r, opt.Keep, w)
						r.Close()
						if err != nil {
							t.Fatal(err)
						}
						if err := w.Seal(); err != nil {
							t.Fatal(err)
						}
						continue
					}
					f, err := os.Open(filepath.Join(dir, from))
					if err != nil {
						t.Fatal(err)
					}
					err = w.CopyText(f, format.Of(from))
					f.Close()
					if err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				final := filepath.Join(filepath.Dir(tmp), to)
				if err := os.Rename(tmp, final); err != nil {
					t.Fatal(err)
				}
				if format.Of(to) == format.Parquet {
					if got := strings.Join(readParquet(t, final), "\n"); got != wantRows+"\n"+wantRows {
						t.Errorf("rows:\n%s\nwant the run's twice:\n%s", got, wantRows)
					}
					return
				}
				if got := strings.Join(readBack(t, final), "\n"); got != text+"\n"+text {
					t.Errorf("text:\n%s\nwant the run's twice:\n%s", got, text)
				}
			})
		}
	}
	existing := filepath.Join(dir, "a.jsonl")
	before, _ := os.ReadFile(existing)
	if _, err := CreateWhole(existing, format.JSONL, opt); err == nil {
		t.Error("CreateWhole opened an existing file")
	}
	if _, err := CreateWhole(filepath.Join(dir, "a.parquet"), format.Parquet, opt); err == nil {
		t.Error("CreateWhole opened an existing folder")
	}
	if after, _ := os.ReadFile(existing); string(after) != string(before) {
		t.Error("an existing file was changed")
	}
}
