package quantize

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"qa-shard/internal/filelock"
)

// modelFolder writes a folder like an optimum export: model.onnx, two
// other files and a subfolder.
func modelFolder(t *testing.T, model []byte) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"model.onnx": string(model), "config.json": `{"model_type": "bert"}`, "tokenizer.json": `{"version": "1.0"}`}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "onnx-extra"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestDir(t *testing.T) {
	model := tinyBERT(t)
	src := modelFolder(t, model)
	parent := t.TempDir()
	dst := filepath.Join(parent, "int8")
	rep, err := Dir(src, dst, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Copied, []string{"config.json", "tokenizer.json"}) || !slices.Equal(rep.Ignored, []string{"onnx-extra"}) {
		t.Errorf("copied %v, ignored %v", rep.Copied, rep.Ignored)
	}
	for _, name := range rep.Copied {
		a, _ := os.ReadFile(filepath.Join(src, name))
		b, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s not copied unchanged: %v", name, err)
		}
	}
	want, _ := mustQuantize(t, model)
	got, err := os.ReadFile(filepath.Join(dst, "model.onnx"))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("model.onnx is not the quantized model (%d bytes, %v)", len(got), err)
	}
	if st, err := os.Stat(dst); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("output folder mode: %v, %v", st.Mode(), err)
	}

	// The output may be an empty folder; anything else is refused.
	empty := filepath.Join(parent, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(src, empty, Options{}); err != nil {
		t.Errorf("empty output folder: %v", err)
	}
	for name, c := range map[string]struct{ src, dst, want string }{
		"output not empty":  {src, dst, "not empty"},
		"output is a file":  {src, filepath.Join(src, "config.json"), "not a folder"},
		"no model folder":   {filepath.Join(parent, "nothing"), filepath.Join(parent, "x1"), "not found: " + filepath.Join(parent, "nothing")},
		"no model.onnx":     {dst + "-missing", filepath.Join(parent, "x2"), "not found"},
		"folder of no onnx": {filepath.Join(src, "onnx-extra"), filepath.Join(parent, "x3"), "has no model.onnx"},
	} {
		if _, err := Dir(c.src, c.dst, Options{}); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want ErrUnsupported saying %q", name, err, c.want)
		}
	}
}

// TestDirRefusedLeavesNothing: a refused model leaves neither the output
// folder nor a temporary one behind.
func TestDirRefusedLeavesNothing(t *testing.T) {
	src := modelFolder(t, []byte("not a model"))
	parent := t.TempDir()
	if _, err := Dir(src, filepath.Join(parent, "out"), Options{}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("garbage model: %v", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestDirRemovesLeftovers: a quantize into dst killed part-way leaves its
// hidden temporary folder (a partial model.onnx in it) and its lock file
// beside dst; the next quantize into dst removes both, says so, and
// writes the whole copy. While another quantize holds dst's lock, one is
// refused and its folder left alone.
func TestDirRemovesLeftovers(t *testing.T) {
	model := tinyBERT(t)
	src := modelFolder(t, model)
	parent := t.TempDir()
	dst := filepath.Join(parent, "int8")
	// What a kill leaves: the temporary folder as Dir names it, part of
	// model.onnx in it, and the lock file, unlocked.
	left, err := os.MkdirTemp(parent, tempPrefix(dst))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "model.onnx"), model[:len(model)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filelock.Path(dst), []byte(`{"pid": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}

	held, err := filelock.Acquire(dst, "another quantize")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(src, dst, Options{}); !errors.Is(err, filelock.ErrHeld) {
		t.Fatalf("a quantize into a held folder: %v, want filelock.ErrHeld", err)
	}
	if _, err := os.Stat(left); err != nil {
		t.Fatalf("the held quantize's folder was removed: %v", err)
	}
	if err := held.Release(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filelock.Path(dst), []byte(`{"pid": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}

	rep, err := Dir(src, dst, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Removed, []string{left}) {
		t.Errorf("Removed %v, want %v", rep.Removed, left)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 || entries[0].Name() != "int8" {
		t.Errorf("beside the copy: %v, want it alone", entries)
	}
	want, _ := mustQuantize(t, model)
	if got, err := os.ReadFile(filepath.Join(dst, "model.onnx")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("model.onnx is not the quantized model (%d bytes, %v)", len(got), err)
	}
}
