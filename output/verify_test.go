package output

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/partfolder"
	"qa-shard/internal/record"
	"qa-shard/journal"
)

// TestVerifyAnswers: the journaled length must end a record (whole
// members and frames for compressed answers) and hold the journal's count
// of records; anything else is ErrCorrupt.
func TestVerifyAnswers(t *testing.T) {
	text := []byte("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n")
	members := func(compress func([]byte) []byte) []byte {
		return append(compress(text[:16]), compress(text[16:])...)
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
		w.Close()
		return buf.Bytes()
	}
	zs := func(b []byte) []byte {
		w, _ := zstd.NewWriter(nil)
		return w.EncodeAll(b, nil)
	}
	for _, tc := range []struct {
		name, file string
		content    []byte
		bytes      int64
		records    int64
		ok         bool
	}{
		{"jsonl whole", "a.jsonl", text, int64(len(text)), 3, true},
		{"jsonl with a tail", "a.jsonl", text, 16, 2, true},
		{"jsonl cut inside a record", "a.jsonl", text, 20, 2, false},
		{"jsonl count differs", "a.jsonl", text, 16, 3, false},
		{"empty", "a.jsonl", text, 0, 0, true},
		{"gzip whole", "a.jsonl.gz", members(gz), int64(len(members(gz))), 3, true},
		{"gzip first member", "a.jsonl.gz", members(gz), int64(len(gz(text[:16]))), 2, true},
		{"gzip cut inside a member", "a.jsonl.gz", members(gz), int64(len(members(gz)) - 5), 3, false},
		{"zstd whole", "a.jsonl.zst", members(zs), int64(len(members(zs))), 3, true},
		{"zstd count differs", "a.jsonl.zst", members(zs), int64(len(members(zs))), 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, tc.content, 0o644); err != nil {
				t.Fatal(err)
			}
			err := verifyAnswers(path, journal.State{Bytes: tc.bytes, Records: tc.records})
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok && !errors.Is(err, journal.ErrCorrupt) {
				t.Fatalf("verify = %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestResumeUnwritable: an output that exists but cannot be written
// (permissions, a read-only file system) is ErrUnwritable on --resume, as
// an unwritable folder is at the start, not an internal failure.
func TestResumeUnwritable(t *testing.T) {
	fp := fingerprint.Fingerprint{Input: "in", Model: "m", Settings: "s", Questions: "q"}
	path := filepath.Join(t.TempDir(), "answers.jsonl")
	out, err := Open(Options{Answers: path, Fingerprint: fp})
	if err != nil {
		t.Fatal(err)
	}
	write(t, out, "a", "b")
	if err := out.Checkpoint(2); err != nil {
		t.Fatal(err)
	}
	out.Close()
	for _, errno := range []error{syscall.EACCES, syscall.EROFS} {
		deny := func(name string, flag int) (file, error) {
			return nil, &os.PathError{Op: "open", Path: name, Err: errno}
		}
		_, err := Open(Options{Answers: path, Fingerprint: fp, Resume: true, openFile: deny})
		if !errors.Is(err, ErrUnwritable) || errors.Is(err, ErrStorage) || !errors.Is(err, errno) {
			t.Errorf("resume with %v: %v, want ErrUnwritable", errno, err)
		}
	}
}

// parquetRun writes a Parquet answers folder of three parts (the third
// after a resume, so the digest is carried across it) and returns its
// path and final journal state.
func parquetRun(t *testing.T, dir string) (string, journal.State) {
	t.Helper()
	path := filepath.Join(dir, "a.parquet")
	opt := Options{Answers: path, Fingerprint: fingerprint.Fingerprint{Input: "i", Model: "m"}, Keep: []string{"url"},
		Schema: record.Schema{ID: record.Int, Keep: []record.Kind{record.String}}, TopK: 1}
	out, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		writeRecord(t, out, i)
		if i%3 == 2 {
			if err := out.Checkpoint(int64(i + 1)); err != nil {
				t.Fatal(err)
			}
		}
	}
	out.Close()
	opt.Resume = true
	if out, err = Open(opt); err != nil {
		t.Fatal(err)
	}
	writeRecord(t, out, 6)
	if err := out.Finish(7); err != nil {
		t.Fatal(err)
	}
	out.Close()
	st, err := journal.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, st
}

// TestVerifyAnswerParts: a Parquet answers folder is checked part by part
// against its journal, which records their digest: as written it passes;
// a part truncated, a part of another output (another run) put in its
// place, or a part of the same run moved are refused naming what differs.
func TestVerifyAnswerParts(t *testing.T) {
	path, st := parquetRun(t, t.TempDir())
	if st.AnswerParts != 3 || st.AnswerDigest == "" || st.Records != 7 {
		t.Fatalf("journal: %d parts, digest %q, %d records; want 3 parts, a digest, 7 records", st.AnswerParts, st.AnswerDigest, st.Records)
	}
	if err := VerifyAnswers(path, st); err != nil {
		t.Fatalf("the folder as written: %v", err)
	}
	other, _ := parquetRun(t, t.TempDir())
	part := func(dir string, i int) string { return partfolder.Path(dir, i) }
	for _, tc := range []struct {
		name   string
		change func(dir string)
		want   string
	}{
		{"truncated", func(dir string) {
			if err := os.Truncate(part(dir, 1), 100); err != nil {
				t.Fatal(err)
			}
		}, "part-00001.parquet cannot be read"},
		{"another run's part", func(dir string) {
			b, err := os.ReadFile(part(other, 2))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(part(dir, 2), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "part-00002.parquet was written by another run"},
		{"parts of this run swapped", func(dir string) {
			a, b := part(dir, 0), part(dir, 1)
			if err := os.Rename(a, a+".x"); err != nil {
				t.Fatal(err)
			}
			if err := errors.Join(os.Rename(b, a), os.Rename(a+".x", b)); err != nil {
				t.Fatal(err)
			}
		}, "its 3 parts are not the ones sealed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, st := parquetRun(t, t.TempDir())
			tc.change(path)
			err := VerifyAnswers(path, st)
			if !errors.Is(err, journal.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("VerifyAnswers = %v, want ErrCorrupt saying %q", err, tc.want)
			}
		})
	}
}
