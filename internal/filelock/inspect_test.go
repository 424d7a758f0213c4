package filelock

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInspect: a lock held by this process is seen held, and Inspect does
// not take it (Acquire by someone else still fails while it is held); a
// released lock leaves no file; a lock file left by a killed holder is
// seen, unheld; a holder on another host is reported, not checked.
func TestInspect(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "answers.jsonl")
	if s, err := Inspect(target); err != nil || s.Exists {
		t.Fatalf("no lock yet: %+v, %v", s, err)
	}
	l, err := Acquire(target, "qa-shard run")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Inspect(target)
	if err != nil || !s.Exists || !s.Checked || !s.Held || s.Holder.PID != os.Getpid() {
		t.Fatalf("held here: %+v, %v", s, err)
	}
	if _, err := Acquire(target, "second"); err == nil {
		t.Fatal("a second Acquire succeeded after Inspect: Inspect must not release or take the lock")
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if s, err := Inspect(target); err != nil || s.Exists {
		t.Fatalf("released: %+v, %v", s, err)
	}
	// A killed holder leaves its file, unlocked.
	host, _ := os.Hostname()
	if err := os.WriteFile(Path(target), []byte(`{"pid":4242,"host":"`+host+`","command":"qa-shard run"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Inspect(target); err != nil || !s.Exists || !s.Checked || s.Held || s.Holder.PID != 4242 {
		t.Fatalf("left by a killed holder: %+v, %v", s, err)
	}
	if err := os.WriteFile(Path(target), []byte(`{"pid":4242,"host":"another-node","command":"qa-shard run"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Inspect(target); err != nil || !s.Exists || s.Checked || s.Holder.Host != "another-node" {
		t.Fatalf("held on another host: %+v, %v", s, err)
	}
}
