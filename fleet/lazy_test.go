package fleet

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"qa-shard/internal/testing/testfixtures"
	"qa-shard/qa"
	"qa-shard/scheduler"
	"qa-shard/worker"
)

// TestLazySessions: a candidate layout's session opens at its first batch
// (or Open), stays while parked on the CPU, closes for good when set
// aside, and opens again if used after all; a session that cannot open
// is a fatal error for its replica.
func TestLazySessions(t *testing.T) {
	f, dir := tinyFleet(t)
	if len(f.Classes) != 1 || len(f.Replicas) < len(f.Classes[0].Layouts) {
		t.Fatalf("classes %+v for %d replicas", f.Classes, len(f.Replicas))
	}
	for name, r := range f.sessions {
		if r.r != nil {
			t.Fatalf("%s opened its session before it was needed", name)
		}
	}
	first := f.Classes[0].Layouts[0].Replicas[0]
	if err := f.Open([]string{first}); err != nil {
		t.Fatal(err)
	}
	l := f.sessions[first]
	if l.r == nil {
		t.Fatal("Open did not open the session")
	}
	b := qa.Batch{Rows: 1, Len: 4, InputIDs: []int64{101, 2000, 2001, 102}, AttentionMask: []int64{1, 1, 1, 1}, TypeIDs: make([]int64, 4)}
	second := f.sessions[f.Classes[0].Layouts[len(f.Classes[0].Layouts)-1].Replicas[0]]
	if _, err := second.Run(context.Background(), b); err != nil || second.r == nil {
		t.Fatalf("first batch on a lazy replica: %v (session open: %v)", err, second.r != nil)
	}
	l.Idle(false)
	if l.r == nil {
		t.Fatal("a parked CPU replica closed its session")
	}
	l.Idle(true)
	if l.r != nil {
		t.Fatal("a replica set aside kept its session")
	}
	if _, err := l.Run(context.Background(), b); err != nil || l.r == nil {
		t.Fatalf("a closed replica used again: %v", err)
	}
	// A session that cannot open: the replica's error says fatal.
	bad := &lazy{name: "bad", model: &worker.Model{ONNXPath: filepath.Join(dir, "missing.onnx")}, log: f.sessions[first].log}
	_, err := bad.Run(context.Background(), b)
	var fatal scheduler.Fatal
	if err == nil || !errors.As(err, &fatal) || !fatal.Fatal() {
		t.Fatalf("opening a missing model: %v, want a fatal error", err)
	}
}

// TestOpenAll: Open opens every named replica (concurrently), ignores
// names it does not know, and returns a session's failure to open.
func TestOpenAll(t *testing.T) {
	f, dir := tinyFleet(t)
	var names []string
	for _, l := range f.Classes[0].Layouts {
		names = append(names, l.Replicas...)
	}
	if err := f.Open(append(names, "no-such-replica")); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if f.sessions[name].r == nil {
			t.Fatalf("Open(%v) left %s without a session", names, name)
		}
	}
	f.sessions["bad"] = &lazy{name: "bad", model: &worker.Model{ONNXPath: filepath.Join(dir, "missing.onnx")}, log: f.sessions[names[0]].log}
	if err := f.Open([]string{names[0], "bad"}); err == nil {
		t.Fatal("Open with a session that cannot open returned no error")
	}
}

// tinyFleet is the fleet of the generated tiny model on the CPU, closed at
// the end of the test, and the folder of the generated models.
func tinyFleet(t *testing.T) (*Fleet, string) {
	t.Helper()
	dir, lib := testfixtures.Setup(t)
	if err := worker.Init(lib); err != nil {
		t.Fatal(err)
	}
	m, err := worker.OpenModel(filepath.Join(dir, "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Start(context.Background(), Options{Devices: "cpu", MaxSeqLen: 64}, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f, dir
}
