package quantize

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"qa-shard/internal/filelock"
	"qa-shard/internal/onnxpb"
	"qa-shard/tokenizer/modeldir"
)

// Dir writes a quantized copy of the model folder src into dst: its
// model.onnx quantized, every other file copied unchanged. dst must not
// exist or be an empty folder. The copy is assembled in a temporary folder
// beside dst and renamed into place, so dst never holds half a model; a
// failure removes it, and the temporary folders a quantize into dst that
// was killed left behind are removed first (Report.Removed). While it
// works, dst's lock (<dst>.lock) is held, so a second quantize into dst
// is refused rather than finding the first one's folder a leftover.
func Dir(src, dst string, o Options) (Report, error) {
	model := filepath.Join(src, "model.onnx")
	if err := modeldir.CheckFolder(src); err != nil {
		return Report{}, fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	if _, err := os.Stat(model); err != nil {
		return Report{}, fmt.Errorf("%w: %s has no model.onnx: pass the folder exported by optimum", ErrUnsupported, src)
	}
	if err := emptyOrAbsent(dst); err != nil {
		return Report{}, err
	}
	if err := writableParent(dst); err != nil {
		return Report{}, err
	}
	lock, err := filelock.Acquire(dst, "qa-shard quantize --out "+dst)
	switch {
	case errors.Is(err, filelock.ErrUnsupported):
		// No locks here: another quantize may be writing its temporary
		// folder, so none is taken for a leftover.
	case err != nil:
		return Report{}, fmt.Errorf("--out %s: %w", dst, err)
	default:
		defer lock.Release()
	}
	var removed []string
	if lock != nil {
		if removed, err = removeLeftovers(dst); err != nil {
			return Report{}, err
		}
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dst)), tempPrefix(dst))
	if err != nil {
		return Report{}, fmt.Errorf("creating the output folder: %w", err)
	}
	rep, err := fill(src, tmp, o)
	rep.Removed = removed
	if err == nil {
		err = os.Chmod(tmp, 0o755)
	}
	if err == nil {
		// os.Rename does not replace a folder, even an empty one;
		// os.Remove removes one only when it is empty.
		if err = os.Remove(dst); errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return rep, err
	}
	return rep, nil
}

// tempPrefix starts the name of the temporary folder a copy into dst is
// assembled in, beside dst (hidden).
func tempPrefix(dst string) string {
	return "." + filepath.Base(filepath.Clean(dst)) + ".tmp-"
}

// removeLeftovers removes the temporary folders of earlier copies into
// dst (tempPrefix), which only a quantize killed part-way leaves: the
// caller holds dst's lock, so none is being written. It returns their
// paths.
func removeLeftovers(dst string) ([]string, error) {
	found, err := filepath.Glob(filepath.Join(filepath.Dir(filepath.Clean(dst)), tempPrefix(dst)+"*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, f := range found {
		if st, err := os.Lstat(f); err != nil || !st.IsDir() {
			continue
		}
		if err := os.RemoveAll(f); err != nil {
			return removed, fmt.Errorf("removing %s, which an earlier quantize into %s left: %w", f, dst, err)
		}
		removed = append(removed, f)
	}
	return removed, nil
}

// writableParent refuses, before any work, an --out whose folder is
// missing or cannot be written: the copy is assembled beside dst.
func writableParent(dst string) error {
	parent := filepath.Dir(filepath.Clean(dst))
	st, err := os.Stat(parent)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: --out %s: its folder %s does not exist: create it first (mkdir -p %s), or choose another --out", ErrUnsupported, dst, parent, parent)
	case err != nil:
		return fmt.Errorf("%w: --out %s: %w", ErrUnsupported, dst, err)
	case !st.IsDir():
		return fmt.Errorf("%w: --out %s: %s is not a folder", ErrUnsupported, dst, parent)
	}
	f, err := os.CreateTemp(parent, tempPrefix(dst)+"probe-")
	if err != nil {
		return fmt.Errorf("%w: --out %s: the folder %s cannot be written (%w): choose an --out where you can write", ErrUnsupported, dst, parent, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

func emptyOrAbsent(dst string) error {
	entries, err := os.ReadDir(dst)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%w: --out %s exists and is not a folder: choose a new folder", ErrUnsupported, dst)
	case len(entries) > 0:
		return fmt.Errorf("%w: --out %s exists and is not empty: choose a new folder (nothing is overwritten)", ErrUnsupported, dst)
	}
	return nil
}

// fill writes the quantized model and the copies into the folder tmp.
func fill(src, tmp string, o Options) (Report, error) {
	f, err := onnxpb.Open(filepath.Join(src, "model.onnx"))
	if err != nil {
		return Report{}, fmt.Errorf("%w: model.onnx: %w", ErrUnsupported, err)
	}
	defer f.Close()
	var rep Report
	err = writeFile(filepath.Join(tmp, "model.onnx"), func(w io.Writer) error {
		var err error
		rep, err = rewriteModel(f.Bytes(), w, o)
		return err
	})
	if err != nil {
		return rep, err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return rep, fmt.Errorf("reading %s: %w", src, err)
	}
	for _, e := range entries {
		name := e.Name()
		if name == "model.onnx" {
			continue
		}
		if e.IsDir() {
			rep.Ignored = append(rep.Ignored, name)
			continue
		}
		if err := copyFile(filepath.Join(src, name), filepath.Join(tmp, name)); err != nil {
			return rep, err
		}
		rep.Copied = append(rep.Copied, name)
	}
	return rep, nil
}

// writeFile creates path, lets write fill it, and syncs it.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, ErrUnsupported) {
		return fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	return err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("copying %s: %w", filepath.Base(from), err)
	}
	defer in.Close()
	return writeFile(to, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
