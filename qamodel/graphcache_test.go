package qamodel

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"qa-shard/internal/testing/testfixtures"
	"qa-shard/internal/testing/testmodel"
)

// checkpointFolder is a family's seeded checkpoint (testmodel.Checkpoints).
func checkpointFolder(t *testing.T) string {
	t.Helper()
	tiny(t) // ONNX Runtime, loaded once
	dir := t.TempDir()
	if err := testfixtures.GenerateCheckpoints(dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, testmodel.Checkpoints[0].Name)
}

// listing is every file under dir with its size, for comparing a folder
// before and after.
func listing(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			out[p] = info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGraphCache: the first open builds the graph into the cache, the
// second takes it from there without building; the model folder is never
// written; an entry damaged since is rebuilt, never used; with the cache
// off the graph is built for the run and removed by Close.
func TestGraphCache(t *testing.T) {
	src := checkpointFolder(t)
	before := listing(t, src)
	cache := t.TempDir()
	open := func() (*Model, []observer.LoggedEntry) {
		core, logs := observer.New(zap.InfoLevel)
		m, err := Open(src, Options{Cache: cache}, 384, zap.New(core))
		if err != nil {
			t.Fatal(err)
		}
		return m, logs.All()
	}
	said := func(entries []observer.LoggedEntry, msg string) bool {
		for _, e := range entries {
			if strings.HasPrefix(e.Message, msg) {
				return true
			}
		}
		return false
	}
	m, logs := open()
	if !m.Built || !strings.HasPrefix(m.Graph.ONNXPath, cache) || !said(logs, "building the model graph") {
		t.Fatalf("first open: built %v, graph %s", m.Built, m.Graph.ONNXPath)
	}
	graph := m.Graph.ONNXPath
	m.Close()
	m, logs = open()
	if said(logs, "building the model graph") || !said(logs, "model graph from the cache") || m.Graph.ONNXPath != graph {
		t.Errorf("second open built again, or took %s", m.Graph.ONNXPath)
	}
	m.Close()
	b, err := os.ReadFile(graph)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(graph, b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, logs = open()
	if !said(logs, "model cache entry damaged") || !said(logs, "building the model graph") {
		t.Errorf("a damaged entry was not rebuilt: %v", logs)
	}
	if got, _ := os.ReadFile(m.Graph.ONNXPath); string(got) == string(b) {
		t.Errorf("the damaged graph is in use")
	}
	m.Close()
	if after := listing(t, src); len(after) != len(before) {
		t.Errorf("the model folder changed: %v, was %v", after, before)
	}
	m, err = Open(src, Options{Cache: CacheOff}, 384, nil)
	if err != nil {
		t.Fatal(err)
	}
	tmp := m.Graph.ONNXPath
	m.Close()
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("--model-cache none left %s", tmp)
	}
}

// TestGraphCacheConcurrentBuilds: processes building the same entry at
// once (the ranks of one job) each end with a whole entry, the same one.
func TestGraphCacheConcurrentBuilds(t *testing.T) {
	src := checkpointFolder(t)
	cache := t.TempDir()
	var wg sync.WaitGroup
	paths := make([]string, 4)
	errs := make([]error, 4)
	for i := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var cleanup func()
			paths[i], cleanup, errs[i] = builtGraph(src, cache, Graph{}, zap.NewNop())
			if cleanup != nil {
				cleanup()
			}
		}()
	}
	wg.Wait()
	for i := range paths {
		if errs[i] != nil || paths[i] != paths[0] {
			t.Errorf("builder %d: %s, %v", i, paths[i], errs[i])
		}
	}
	entries, _ := os.ReadDir(filepath.Join(cache, "graphs"))
	if len(entries) != 1 {
		t.Errorf("graphs/ holds %d entries, want 1 (no temporary folder left)", len(entries))
	}
	if err := verify(filepath.Dir(paths[0]), ""); err == nil {
		t.Errorf("an entry verifies against any key")
	}
}
