package journal_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"qa-shard/internal/fingerprint"
	"qa-shard/journal"
)

func TestOpenFingerprint(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*fingerprint.Fingerprint)
		changed []string // components named in the error; none: accepted
	}{
		{"identical", func(*fingerprint.Fingerprint) {}, nil},
		{"input", func(f *fingerprint.Fingerprint) { f.Input = "size=1;sha256=" + strings.Repeat("e", 64) }, []string{"input"}},
		{"model", func(f *fingerprint.Fingerprint) { f.Model = "sha256=" + strings.Repeat("e", 64) }, []string{"model"}},
		{"settings", func(f *fingerprint.Fingerprint) { f.Settings = "sha256=" + strings.Repeat("e", 64) }, []string{"settings"}},
		{"questions", func(f *fingerprint.Fingerprint) { f.Questions = "sha256=" + strings.Repeat("e", 64) }, []string{"questions"}},
		{"model and questions", func(f *fingerprint.Fingerprint) {
			f.Model = "sha256=" + strings.Repeat("e", 64)
			f.Questions = ""
		}, []string{"model", "questions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := outPath(t)
			if _, err := journal.Create(out, fp()); err != nil {
				t.Fatal(err)
			}
			now := fp()
			tt.change(&now)
			_, _, err := journal.OpenChecked(out, now, nil)
			if tt.changed == nil {
				if err != nil {
					t.Fatalf("Open with the same fingerprint: %v", err)
				}
				return
			}
			var me *journal.MismatchError
			if !errors.Is(err, journal.ErrMismatch) || !errors.As(err, &me) {
				t.Fatalf("Open = %v, want a *MismatchError", err)
			}
			var got []string
			for _, c := range me.Changes {
				got = append(got, c.Component)
			}
			if strings.Join(got, ",") != strings.Join(tt.changed, ",") {
				t.Errorf("changed components = %v, want %v", got, tt.changed)
			}
			msg := err.Error()
			for _, c := range tt.changed {
				if !strings.Contains(msg, "the "+c+" changed") {
					t.Errorf("message %q does not name %s", msg, c)
				}
			}
			// Old and new short hashes both appear; full hashes do not.
			if tt.changed[0] != "questions" && (!strings.Contains(msg, "eeeeeeeeeeee") || strings.Contains(msg, strings.Repeat("e", 13))) {
				t.Errorf("message %q does not show the new hash shortened to 12", msg)
			}
			if !strings.Contains(msg, "--overwrite") {
				t.Errorf("message %q does not say what to do", msg)
			}
		})
	}
}

func TestOpenOutputLength(t *testing.T) {
	const journaled = "r0\nr1\n"
	tests := []struct {
		name    string
		output  *string // nil: the output is missing
		bytes   int64   // State.Bytes journaled
		wantErr error
		want    string // the output after Open
	}{
		{"exact", ptr(journaled), 6, nil, journaled},
		{"tail written but not journaled", ptr(journaled + "r2\nr3\n"), 6, nil, journaled},
		{"half a record after the journaled ones", ptr(journaled + `{"id":`), 6, nil, journaled},
		{"shorter than journaled", ptr("r0\nr"), 6, journal.ErrOutputShort, ""},
		{"empty but journaled bytes", ptr(""), 6, journal.ErrOutputShort, ""},
		{"missing but journaled bytes", nil, 6, journal.ErrOutputShort, ""},
		{"missing and nothing journaled", nil, 0, nil, ""},
		{"tail and nothing journaled", ptr("r0\n"), 0, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := outPath(t)
			j, err := journal.Create(out, fp())
			if err != nil {
				t.Fatal(err)
			}
			if tt.bytes > 0 {
				if err := j.Checkpoint(okSync{}, 2, tt.bytes, 0); err != nil {
					t.Fatal(err)
				}
			}
			if tt.output != nil {
				if err := os.WriteFile(out, []byte(*tt.output), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, s, err := journal.OpenChecked(out, fp(), nil)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Open = %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), "--overwrite") {
					t.Errorf("message %q does not say what to do", err)
				}
				if tt.output != nil {
					if got := readFile(t, out); got != *tt.output {
						t.Errorf("a refused Open changed the output to %q", got)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Bytes != tt.bytes {
				t.Errorf("State.Bytes = %d, want %d", s.Bytes, tt.bytes)
			}
			if tt.output == nil {
				if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("Open created the missing output: %v", err)
				}
				return
			}
			if got := readFile(t, out); got != tt.want {
				t.Errorf("output after Open = %q, want %q", got, tt.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestOpenAfterCrashInCheckpoint leaves what a crash during Checkpoint
func TestOpenAfterCrashInCheckpoint(t *testing.T) {
	tests := []struct{ name, tmp string }{
		{"empty tmp", ""},
		{"half a journal", `{"version":1,"fingerprint":{"input":"size=`},
		{"a whole newer journal never renamed", `{"version":1,"done":99,"bytes":999}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := outPath(t)
			j, err := journal.Create(out, fp())
			if err != nil {
				t.Fatal(err)
			}
			f := appendOut(t, out, "r0\nr1\n")
			if err := j.Checkpoint(f, 2, 6, 1); err != nil {
				t.Fatal(err)
			}
			appendOut(t, out, "r2\n")
			tmp := journal.Path(out) + ".tmp"
			if err := os.WriteFile(tmp, []byte(tt.tmp), 0o644); err != nil {
				t.Fatal(err)
			}
			j, s, err := journal.OpenChecked(out, fp(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Done != 2 || s.Bytes != 6 || s.LogitsParts != 1 {
				t.Errorf("Open = %+v, want the previous checkpoint (2, 6, 1)", s)
			}
			if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the tmp file is still there: %v", err)
			}
			// The resumed journal carries on from the previous state.
			if err := j.Checkpoint(appendOut(t, out, "r2\n"), 3, 9, 1); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestOpenBadJournal(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    error
	}{
		{"invalid JSON", "not json at all", journal.ErrCorrupt},
		{"empty", "", journal.ErrCorrupt},
		{"cut short", `{"version":1,"done":3,"by`, journal.ErrCorrupt},
		{"trailing garbage", `{"version":1} x`, journal.ErrCorrupt},
		{"wrong types", `{"version":1,"done":"three"}`, journal.ErrCorrupt},
		{"no version", `{"done":3}`, journal.ErrCorrupt},
		{"negative bytes", `{"version":3,"bytes":-1}`, journal.ErrCorrupt},
		{"no checksum", `{"version":3,"done":3}`, journal.ErrCorrupt},
		{"the version before checksums", `{"version":2,"done":3}`, journal.ErrVersion},
		{"future version", `{"version":99}`, journal.ErrVersion},
		{"the version before input states", `{"version":1,"done":3}`, journal.ErrVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := outPath(t)
			if err := os.WriteFile(journal.Path(out), []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := journal.OpenChecked(out, fingerprint.Fingerprint{}, nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Open = %v, want %v", err, tt.want)
			}
			if msg := err.Error(); !strings.Contains(msg, journal.Path(out)) || !strings.Contains(msg, "--overwrite") {
				t.Errorf("message %q does not name the journal and say what to do", msg)
			}
		})
	}
}

func TestOpenWithoutJournal(t *testing.T) {
	out := outPath(t)
	if err := os.WriteFile(out, []byte("r0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := journal.OpenChecked(out, fp(), nil)
	if !errors.Is(err, journal.ErrNoJournal) || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("Open = %v, want ErrNoJournal telling to drop --resume", err)
	}
	if got := readFile(t, out); got != "r0\n" {
		t.Errorf("Open without a journal changed the output to %q", got)
	}
}
