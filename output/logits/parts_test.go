package logits

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"qa-shard/internal/partfolder"
)

// TestParts: sealed parts survive a reopen that keeps them, later and
// unsealed parts are removed, and ReadDir returns rows in part order.
func TestParts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logits")
	rows := genRows(30)
	p, err := OpenParts(dir, 0, "", Options{Run: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	var digests []string
	for i := range 3 {
		if err := p.Write(rows[i*10 : i*10+10]); err != nil {
			t.Fatal(err)
		}
		if n, err := p.Seal(); err != nil || n != i+1 {
			t.Fatalf("seal %d: n=%d err=%v", i, n, err)
		}
		digests = append(digests, p.Digest())
	}
	if err := p.Write(rows[:5]); err != nil { // unsealed: a crash here
		t.Fatal(err)
	}
	if _, err := os.Stat(partfolder.Path(dir, 3) + partfolder.TempSuffix); err != nil {
		t.Fatalf("open part not written under its temporary name: %v", err)
	}
	p2, err := OpenParts(dir, 2, digests[1], Options{Run: "r1"}) // the journal vouches for two parts only
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{partfolder.Path(dir, 2), partfolder.Path(dir, 3) + partfolder.TempSuffix} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s survived the reopen", gone)
		}
	}
	if err := p2.Write(rows[20:30]); err != nil {
		t.Fatal(err)
	}
	if n, err := p2.Seal(); err != nil || n != 3 {
		t.Fatalf("seal after reopen: n=%d err=%v", n, err)
	}
	got, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 30 {
		t.Fatalf("%d rows, want 30", len(got))
	}
	for i := range got {
		if !reflect.DeepEqual(normalize(got[i]), normalize(rows[i])) {
			t.Fatalf("row %d differs", i)
		}
	}
}
