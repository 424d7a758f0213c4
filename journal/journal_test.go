package journal_test

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"qa-shard/journal"
)

func TestCheckpointOpenRoundTrip(t *testing.T) {
	type step struct {
		records     string
		done        int64
		logitsParts int
	}
	tests := []struct {
		name   string
		steps  []step
		finish bool
	}{
		{"no checkpoint", nil, false},
		{"one checkpoint", []step{{"a\nb\n", 2, 0}}, false},
		{"several checkpoints", []step{{"a\n", 1, 0}, {"bb\n", 2, 1}, {"ccc\nd\n", 4, 3}}, false},
		{"empty checkpoint keeps counts", []step{{"a\n", 1, 1}, {"", 1, 1}}, false},
		{"finished", []step{{"a\n", 1, 0}, {"b\n", 2, 2}}, true},
		{"finished with nothing", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := outPath(t)
			j, err := journal.Create(out, fp())
			if err != nil {
				t.Fatal(err)
			}
			f := appendOut(t, out, "")
			var want journal.State
			var all string
			for _, s := range tt.steps {
				f = appendOut(t, out, s.records)
				all += s.records
				if err := j.Checkpoint(f, s.done, int64(len(all)), s.logitsParts); err != nil {
					t.Fatal(err)
				}
				want.Done, want.Bytes, want.LogitsParts = s.done, int64(len(all)), s.logitsParts
			}
			if tt.finish {
				if err := j.Finish(f, want.Done, want.Bytes, want.LogitsParts); err != nil {
					t.Fatal(err)
				}
				want.Complete = true
			}
			_, got, err := journal.OpenChecked(out, fp(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Done != want.Done || got.Bytes != want.Bytes || got.LogitsParts != want.LogitsParts || got.Complete != want.Complete {
				t.Errorf("Open = done %d bytes %d parts %d complete %v, want %+v", got.Done, got.Bytes, got.LogitsParts, got.Complete, want)
			}
			if got.Version != journal.Version || got.Fingerprint != fp() || got.Updated.IsZero() {
				t.Errorf("Open = version %d fingerprint %+v updated %v", got.Version, got.Fingerprint, got.Updated)
			}
			if got := readFile(t, out); got != all {
				t.Errorf("output = %q, want %q", got, all)
			}
		})
	}
}

// TestResumeAfterCrash runs the whole protocol: a run writes records, is
// "killed" after writing records it never journaled, resumes, and ends with
// the bytes an uninterrupted run writes.
func TestResumeAfterCrash(t *testing.T) {
	records := []string{"r0\n", "r1\n", "r2\n", "r3\n", "r4\n"}
	out := outPath(t)
	j, err := journal.Create(out, fp())
	if err != nil {
		t.Fatal(err)
	}
	f := appendOut(t, out, records[0]+records[1])
	if err := j.Checkpoint(f, 2, 6, 0); err != nil {
		t.Fatal(err)
	}
	appendOut(t, out, records[2]+"r3 half") // the crash: written, not journaled

	j, s, err := journal.OpenChecked(out, fp(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Done != 2 {
		t.Fatalf("resume from Seq %d, want 2", s.Done)
	}
	var rest string
	for _, r := range records[s.Done:] {
		rest += r
	}
	f = appendOut(t, out, rest)
	if err := j.Finish(f, int64(len(records)), s.Bytes+int64(len(rest)), 0); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, out), strings.Join(records, ""); got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	if _, s, err := journal.OpenChecked(out, fp(), nil); err != nil || !s.Complete || s.Done != 5 {
		t.Errorf("after Finish, Open = %+v, %v; want complete with 5 done", s, err)
	}
}

// leaves: the previous journal and a half-written <journal>.tmp.
// TestStateSizeConstant holds the O(1) promise: the journal for a billion
// documents is as small as for one, bar the digits.
func TestStateSizeConstant(t *testing.T) {
	size := func(done, bytes int64, parts int) int64 {
		out := outPath(t)
		j, err := journal.Create(out, fp())
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Checkpoint(okSync{}, done, bytes, parts); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(journal.Path(out))
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	small := size(1, 100, 1)
	big := size(1_000_000_000, 1_000_000_000_000, 100_000)
	if big > 800 { // with its checksum and the run id
		t.Errorf("journal for 1e9 documents is %d bytes, want under 800", big)
	}
	// 9 more digits in done, 10 in bytes, 5 in logits_parts.
	if big-small > 9+10+5 {
		t.Errorf("journal grew from %d to %d bytes, more than the extra digits", small, big)
	}
}

func TestCheckpointMisuse(t *testing.T) {
	tests := []struct {
		name  string
		first func(*journal.Journal) error
		then  func(*journal.Journal) error
	}{
		{"done backwards",
			func(j *journal.Journal) error { return j.Checkpoint(okSync{}, 5, 50, 0) },
			func(j *journal.Journal) error { return j.Checkpoint(okSync{}, 4, 50, 0) }},
		{"bytes backwards",
			func(j *journal.Journal) error { return j.Checkpoint(okSync{}, 5, 50, 0) },
			func(j *journal.Journal) error { return j.Checkpoint(okSync{}, 5, 49, 0) }},
		{"logits parts backwards",
			func(j *journal.Journal) error { return j.Checkpoint(okSync{}, 5, 50, 2) },
			func(j *journal.Journal) error { return j.Checkpoint(okSync{}, 6, 60, 1) }},
		{"negative",
			func(j *journal.Journal) error { return nil },
			func(j *journal.Journal) error { return j.Checkpoint(okSync{}, -1, 0, 0) }},
		{"checkpoint after finish",
			func(j *journal.Journal) error { return j.Finish(okSync{}, 5, 50, 0) },
			func(j *journal.Journal) error { return j.Checkpoint(okSync{}, 6, 60, 0) }},
		{"finish twice",
			func(j *journal.Journal) error { return j.Finish(okSync{}, 5, 50, 0) },
			func(j *journal.Journal) error { return j.Finish(okSync{}, 5, 50, 0) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := outPath(t)
			j, err := journal.Create(out, fp())
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.first(j); err != nil {
				t.Fatal(err)
			}
			before := j.State()
			if err := tt.then(j); !errors.Is(err, journal.ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
			if !reflect.DeepEqual(j.State(), before) {
				t.Errorf("a refused checkpoint changed the state to %+v", j.State())
			}
		})
	}
}

// failSync is an output whose data could not be made durable.
type failSync struct{}

func (failSync) Sync() error { return errors.New("input/output error") }

func TestCheckpointOutputSyncFails(t *testing.T) {
	out := outPath(t)
	j, err := journal.Create(out, fp())
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Checkpoint(okSync{}, 1, 3, 0); err != nil {
		t.Fatal(err)
	}
	if err := j.Checkpoint(failSync{}, 2, 6, 0); err == nil || !strings.Contains(err.Error(), "input/output error") {
		t.Fatalf("Checkpoint with a failing output sync = %v, want its error", err)
	}
	if err := os.WriteFile(out, []byte("r0\nr1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, s, err := journal.OpenChecked(out, fp(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Done != 1 || s.Bytes != 3 {
		t.Errorf("the journal claims bytes that were never synced: %+v", s)
	}
}

// TestConcurrentCheckpoints backs the claim that a Journal may be used from
// several goroutines (run with -race): every checkpoint either lands or is
// refused as going backwards, and the largest one always lands.
func TestConcurrentCheckpoints(t *testing.T) {
	out := outPath(t)
	j, err := journal.Create(out, fp())
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	errs := make(chan error, n)
	for i := 1; i <= n; i++ {
		go func() {
			err := j.Checkpoint(okSync{}, int64(i), int64(10*i), 0)
			if errors.Is(err, journal.ErrInvalid) {
				err = nil
			}
			_ = j.State()
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if s := j.State(); s.Done != n || s.Bytes != 10*n {
		t.Errorf("State = %+v, want done %d bytes %d", s, n, 10*n)
	}
	if err := os.WriteFile(out, make([]byte, 10*n), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, s, err := journal.OpenChecked(out, fp(), nil); err != nil || s.Done != n {
		t.Errorf("Open = %+v, %v; want done %d", s, err, n)
	}
}
