package input

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qa-shard/internal/corpus"
	"qa-shard/internal/readstate"
)

// TestResumeAnywhere: the input state after any number of documents (as
// the journal stores it, through JSON) resumes exactly after them, in
// every format and rank: the rest is what an uninterrupted read gives.
func TestResumeAnywhere(t *testing.T) {
	files, err := Find(mixed(t, t.TempDir()))
	must(t, err)
	for _, w := range []int{1, 3, 16} {
		for r := range w {
			s := openRank(t, files, r, w, nil, 0)
			states := map[int64][]byte{0: marshal(t, s.At(0))}
			var docs []string
			for i := int64(0); ; i++ {
				d, err := s.Next()
				if err != nil {
					break
				}
				docs = append(docs, key(d))
				states[i+1] = marshal(t, s.At(i+1))
			}
			for k := int64(0); k <= int64(len(docs)); k++ {
				var st readstate.State
				must(t, json.Unmarshal(states[k], &st))
				rest := readAll(t, openRank(t, files, r, w, &st, k))
				var got []string
				for i, d := range rest {
					if d.Seq != k+int64(i) {
						t.Fatalf("w=%d rank %d resumed at %d: doc %d has Seq %d", w, r, k, i, d.Seq)
					}
					got = append(got, key(d))
				}
				if strings.Join(got, "\n") != strings.Join(docs[k:], "\n") {
					t.Fatalf("w=%d rank %d resumed after %d of %d documents: %d read, want %d\n%s", w, r, k, len(docs), len(got), len(docs)-int(k), states[k])
				}
			}
		}
	}
}

func marshal(t *testing.T, st readstate.State) []byte {
	b, err := json.Marshal(st)
	must(t, err)
	return b
}

// TestResumeRefusesChangedInput: a file read before the resume point that
// changed size or modification time, or whose bytes before the point
// changed (even with its time put back), is refused, naming it; a file not
// read yet may change.
func TestResumeRefusesChangedInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stop   int // documents read before the state is taken
		change func(paths []string)
		want   string // "" for accepted
		runFP  bool   // the run's fingerprint (names; sizes only for ranks) changes
	}{
		{"untouched", 160, func([]string) {}, "", false},
		{"appended to a file read before", 160, func(p []string) { appendTo(p[0], "\n") }, "a.jsonl had", false},
		{"touched a file read before", 160, func(p []string) { check(os.Chtimes(p[0], time.Now(), time.Now().Add(time.Hour))) }, "a.jsonl had", false},
		{"bytes before the point changed, time put back", 60, func(p []string) { flipKeepTime(p[0], 50) }, "differs from what the journal recorded", false},
		{"compressed bytes changed, time put back", 160, func(p []string) { flipKeepTime(p[1], 100) }, "b.jsonl.gz", false},
		{"bytes after the point changed, time put back", 60, func(p []string) { flipKeepTime(p[0], -10) }, "", false},
		{"file not read yet", 160, func(p []string) { check(os.Chtimes(p[5], time.Now(), time.Now().Add(time.Hour))) }, "", false},
		{"file not read yet grows", 160, func(p []string) { appendTo(p[5], "\n") }, "", false},
		{"the file resumed in replaced by a longer copy", 160, func(p []string) { regzip(p[1], lines(120, 210)) }, "", false},
		{"the file resumed in replaced by other text", 160, func(p []string) { regzip(p[1], lines(121, 210)) }, "differs from what the journal recorded", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paths := mixed(t, t.TempDir())
			files := mustFind(t, paths)
			before := fingerprintOf(files, 1)
			s := openRank(t, files, 0, 1, nil, 0)
			for range tc.stop {
				if _, err := s.Next(); err != nil {
					t.Fatal(err)
				}
			}
			st := s.At(int64(tc.stop))
			tc.change(paths)
			files = mustFind(t, paths)
			if changed := fingerprintOf(files, 1) != before; changed != tc.runFP {
				t.Errorf("the run's fingerprint changed: %v, want %v", changed, tc.runFP)
			}
			plan, err := Split(files, s.plan.Rank)
			must(t, err)
			_, err = plan.Open(options(), &st, int64(tc.stop))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (!errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want ErrChanged with %q", err, tc.want)
			}
		})
	}
}

func mustFind(t testing.TB, paths []string) []File {
	files, err := Find(paths)
	must(t, err)
	return files
}

// check fails a setup step of a helper that has no *testing.T.
func check(err error) {
	if err != nil {
		panic(err)
	}
}

func appendTo(path, s string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	check(err)
	_, err = f.WriteString(s)
	check(err)
	check(f.Close())
}

// flipKeepTime changes one byte and puts the modification time back.
func flipKeepTime(path string, at int64) {
	st, _ := os.Stat(path)
	b, _ := os.ReadFile(path)
	if at < 0 {
		at += int64(len(b))
	}
	b[at] ^= 0xff
	check(os.WriteFile(path, b, 0o644))
	check(os.Chtimes(path, st.ModTime(), st.ModTime()))
}

// TestCorruptCompressed: documents before the damage are read; then the
// error names the file and the compressed byte offset, and is ErrCorrupt.
func TestCorruptCompressed(t *testing.T) {
	for _, name := range []string{"x.jsonl.gz", "x.jsonl.zst"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			must(t, corpus.WriteText(path, []byte(lines(0, 300)), 20000))
			b, _ := os.ReadFile(path)
			cut := len(b) * 2 / 3
			for i := cut; i < cut+64; i++ {
				b[i] ^= 0x5a
			}
			must(t, os.WriteFile(path, b, 0o644))
			s := openRank(t, mustFind(t, []string{path}), 0, 1, nil, 0)
			n := 0
			var err error
			for {
				if _, err = s.Next(); err != nil {
					break
				}
				n++
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "compressed byte") {
				t.Fatalf("after %d documents: %v, want ErrCorrupt naming the file and offset", n, err)
			}
			if n < 100 {
				t.Errorf("only %d documents before the damage at 2/3 of the file", n)
			}
			t.Logf("%d documents, then: %v", n, err)
		})
	}
}

// regzip replaces a gzip file by another compression of text.
func regzip(path, text string) {
	check(corpus.WriteText(path, []byte(text), 1000))
}

// TestFingerprintSizesOnlyForRanks: ranks split by sizes, so a size
// change refuses a rank's resume; a single process checks files itself.
func TestFingerprintSizesOnlyForRanks(t *testing.T) {
	paths := mixed(t, t.TempDir())
	one, many := fingerprintOf(mustFind(t, paths), 1), fingerprintOf(mustFind(t, paths), 4)
	appendTo(paths[5], "\n")
	if fingerprintOf(mustFind(t, paths), 1) != one || fingerprintOf(mustFind(t, paths), 4) == many {
		t.Error("a size change must change the fingerprint of ranks, and only theirs")
	}
	must(t, os.Rename(paths[5], paths[5]+".renamed"))
	if fingerprintOf(mustFind(t, append(paths[:5], paths[5]+".renamed")), 1) == one {
		t.Error("a renamed file must change the fingerprint")
	}
}
