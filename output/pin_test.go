package output

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/partfolder"
	"qa-shard/internal/pin"
	"qa-shard/internal/record"
	"qa-shard/journal"
)

// TestOutputChangedUnderRun: an answers file truncated, removed or
// replaced from outside the run after a checkpoint, a Parquet answers
// part or folder removed, a logits part removed, or the journal removed:
// the next checkpoint, and the final one, fail with pin.ErrChanged naming the
// file and saying what --resume does; the journal keeps the checkpoint
// before the change (nothing is vouched for that is not kept).
func TestOutputChangedUnderRun(t *testing.T) {
	for _, tc := range []struct {
		name, answers string
		change        func(answers, logitsDir string) error
		names         string // in the message
		late          bool   // changed after the writes that follow the checkpoint (a new logits part cannot be created in a removed folder)
	}{
		{"jsonl truncated", "a.jsonl", func(a, _ string) error { return os.Truncate(a, 0) }, "a.jsonl has 448 bytes, and 896 were written", false},
		{"jsonl.gz truncated", "a.jsonl.gz", func(a, _ string) error { return os.Truncate(a, 10) }, "a.jsonl.gz has ", false},
		{"jsonl removed", "a.jsonl", func(a, _ string) error { return os.Remove(a) }, "a.jsonl was removed", false},
		{"jsonl replaced", "a.jsonl", func(a, _ string) error {
			if err := os.WriteFile(a+".new", []byte("{}\n"), 0o644); err != nil {
				return err
			}
			return os.Rename(a+".new", a)
		}, "a.jsonl was replaced", false},
		{"parquet part removed", "a.parquet", func(a, _ string) error { return os.Remove(partfolder.Path(a, 0)) }, "part-00000.parquet was removed", false},
		{"parquet folder removed", "a.parquet", func(a, _ string) error { return os.RemoveAll(a) }, "a.parquet was removed", false},
		{"logits part removed", "a.jsonl", func(_, l string) error { return os.Remove(partfolder.Path(l, 0)) }, "part-00000.parquet was removed", false},
		{"logits folder removed", "a.jsonl", func(_, l string) error { return os.RemoveAll(l) }, "logits was removed", true},
		{"journal removed", "a.jsonl", func(a, _ string) error { return os.Remove(journal.Path(a)) }, "a.jsonl.journal was removed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, lg := filepath.Join(dir, tc.answers), filepath.Join(dir, "logits")
			out, err := Open(Options{Answers: path, Logits: lg, Fingerprint: fingerprint.Fingerprint{Input: "i", Model: "m"}})
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			for i := range 4 {
				writeAnswer(t, out, i)
			}
			if err := out.Checkpoint(4); err != nil {
				t.Fatal(err)
			}
			if !tc.late {
				if err := tc.change(path, lg); err != nil {
					t.Fatal(err)
				}
			}
			for i := 4; i < 8; i++ {
				writeAnswer(t, out, i)
			}
			if tc.late {
				if err := tc.change(path, lg); err != nil {
					t.Fatal(err)
				}
			}
			for _, save := range []func(int64) error{out.Checkpoint, out.Finish} {
				err := save(8)
				if !errors.Is(err, pin.ErrChanged) || !strings.Contains(err.Error(), tc.names) || !strings.Contains(err.Error(), "--resume") {
					t.Fatalf("a checkpoint after %s: %v, want pin.ErrChanged saying %q and what --resume does", tc.name, err, tc.names)
				}
			}
			if out.Saved() != 4 {
				t.Errorf("Saved = %d, want 4: the checkpoint before the change", out.Saved())
			}
			if st, err := journal.Read(path); err == nil && (st.Done != 4 || st.Complete) {
				t.Errorf("the journal says %d documents (complete %v), want the 4 before the change", st.Done, st.Complete)
			}
		})
	}
}

// TestOutputUnchanged: a run nobody touches passes every check, a resumed
// one too (the parts and file it continues are its own).
func TestOutputUnchanged(t *testing.T) {
	for _, name := range []string{"a.jsonl", "a.jsonl.zst", "a.parquet"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			opt := Options{Answers: filepath.Join(dir, name), Logits: filepath.Join(dir, "logits"), Fingerprint: fingerprint.Fingerprint{Input: "i", Model: "m"}}
			out, err := Open(opt)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 6 {
				writeAnswer(t, out, i)
				if i%2 == 1 {
					if err := out.Checkpoint(int64(i + 1)); err != nil {
						t.Fatal(err)
					}
				}
			}
			out.Close()
			opt.Resume = true
			out, err = Open(opt)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			writeAnswer(t, out, 6)
			if err := out.Finish(7); err != nil {
				t.Fatalf("finishing an untouched, resumed run: %v", err)
			}
		})
	}
}

// writeAnswer writes answer i and its one logits row.
func writeAnswer(t *testing.T, out *Outputs, i int) {
	t.Helper()
	id := json.RawMessage(`"d` + strconv.Itoa(i) + `"`)
	pos := record.Position{File: "in.jsonl", At: int64(100 * i)}
	if err := out.Answers.WriteAnswer(record.AnswerRecord{ID: id, Question: "q", Answer: "a", Score: 0.5, Start: 0, End: 1, Windows: 1}); err != nil {
		t.Fatal(err)
	}
	if out.Logits == nil {
		return
	}
	row := record.LogitsRow{Pos: pos, ID: id, Question: "q", InputIDs: []int32{101, 102}, SequenceIDs: []int8{-1, -1}, WordIDs: []int32{-1, -1},
		OffsetStart: []int32{0, 0}, OffsetEnd: []int32{0, 0}, StartLogits: []float32{0, 1}, EndLogits: []float32{1, 0}}
	if err := out.Logits.Write([]record.LogitsRow{row}); err != nil {
		t.Fatal(err)
	}
}
