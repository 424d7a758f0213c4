package merge

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/readstate"
	"qa-shard/internal/record"
	"qa-shard/internal/testing/testtree"
	"qa-shard/journal"
	"qa-shard/output/logits"
	"qa-shard/shard"
)

// rank describes one rank's files for writeRank.
type rank struct {
	rank, world int
	first, end  int64 // documents, and input bytes in these tests
	total       int64 // input bytes of the run (default 10)
	settings    string
	incomplete  bool   // journaled, but not finished
	parts       int    // logits parts
	logitsAt    string // the logits folder's name, recorded in the journal ("": logits.rank-..., not recorded, as older journals)
}

// answerLine is document i's record, as a run writes it.
func answerLine(i int64) string {
	return fmt.Sprintf(`{"id":%d,"question":"q","answer":"a%d","score":0.5,"start":0,"end":1,"windows":1}`+"\n", i, i)
}

// writeRank writes a rank's answers (one record per document), its
// logits parts (the rank's documents spread over them, one row each) and
// its journal under dir, as a rank of a run does, and returns the answers
// path.
func writeRank(t *testing.T, dir string, r rank) string {
	t.Helper()
	sr := shard.Rank{Rank: r.rank, World: r.world}
	path := shard.Path(filepath.Join(dir, "answers.jsonl"), sr)
	fp := fingerprint.Fingerprint{Input: "in", Model: "model", Settings: r.settings, Questions: "q",
		Block: &readstate.Block{Rank: r.rank, World: r.world, From: r.first, To: r.end, Total: cmp.Or(r.total, 10)}}
	j, err := journal.Create(path, fp)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := r.first; i < r.end; i++ {
		b.WriteString(answerLine(i))
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	lg := shard.Path(filepath.Join(dir, "logits"), sr)
	if r.logitsAt != "" {
		lg = filepath.Join(dir, r.logitsAt)
	}
	p, err := logits.OpenParts(lg, 0, "", logits.Options{ID: record.Int, Run: j.State().Run})
	if err != nil {
		t.Fatal(err)
	}
	n := r.end - r.first
	for k := range int64(r.parts) {
		rows := []record.LogitsRow{}
		for i := r.first + k*n/int64(r.parts); i < r.first+(k+1)*n/int64(r.parts); i++ {
			rows = append(rows, logitsRow(i))
		}
		if len(rows) == 0 {
			rows = append(rows, logitsRow(-1)) // a part holds a row at least
		}
		if err := p.Write(rows); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Seal(); err != nil {
			t.Fatal(err)
		}
	}
	prog := journal.Progress{Done: r.end - r.first, Bytes: int64(b.Len()), Records: r.end - r.first, LogitsParts: r.parts, LogitsDigest: p.Digest(), Logits: r.logitsAt}
	save := j.Complete
	if r.incomplete {
		save = j.Save
	}
	if err := save(f, prog); err != nil {
		t.Fatal(err)
	}
	return path
}

// logitsRow is a window of document i (-1: a filler row).
func logitsRow(i int64) record.LogitsRow {
	return record.LogitsRow{ID: json.RawMessage(fmt.Sprint(i)), Pos: record.Position{File: "in.jsonl", At: i}, Question: "q",
		InputIDs: []int32{101, 7, 102}, SequenceIDs: []int8{-1, 1, -1}, WordIDs: []int32{-1, 0, -1},
		OffsetStart: []int32{0, 0, 0}, OffsetEnd: []int32{0, 1, 0}, StartLogits: []float32{0, 1, 0}, EndLogits: []float32{0, 2, 0}}
}

// threeRanks writes a complete run of 3 ranks over 10 documents, rank 1
// empty, logits in folders the journals record.
func threeRanks(t *testing.T, dir string) []string {
	return []string{
		writeRank(t, dir, rank{rank: 0, world: 3, first: 0, end: 4, settings: "s", parts: 2, logitsAt: "lg.rank-00000-of-00003"}),
		writeRank(t, dir, rank{rank: 1, world: 3, first: 4, end: 4, settings: "s", parts: 1, logitsAt: "lg.rank-00001-of-00003"}),
		writeRank(t, dir, rank{rank: 2, world: 3, first: 4, end: 10, settings: "s", parts: 1, logitsAt: "lg.rank-00002-of-00003"}),
	}
}

// wantAnswers is the merged answers of documents 0..n-1.
func wantAnswers(n int64) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(answerLine(i))
	}
	return b.String()
}

// logitsIDs is the ids of a logits folder's rows, in order (filler rows
// as -1).
func logitsIDs(t *testing.T, dir string) []string {
	t.Helper()
	rows, err := logits.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = string(r.ID)
	}
	return ids
}

// tree records dir (testtree.Of).
func tree(t *testing.T, dir string) testtree.Tree {
	t.Helper()
	m, err := testtree.Of(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameTree fails the test when before and after differ, naming how.
func sameTree(t *testing.T, what string, before, after testtree.Tree) {
	t.Helper()
	if diff := before.Diff(after); len(diff) > 0 {
		t.Errorf("%s:\n  %s", what, strings.Join(diff, "\n  "))
	}
}
