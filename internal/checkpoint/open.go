package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The weight files of a model folder, in the order transformers prefers
// them (safetensors first).
const (
	SafetensorsFile  = "model.safetensors"
	SafetensorsIndex = "model.safetensors.index.json"
	TorchFile        = "pytorch_model.bin"
	TorchIndex       = "pytorch_model.bin.index.json"
)

// WeightFiles are the names Open looks for, in its order.
var WeightFiles = []string{SafetensorsFile, SafetensorsIndex, TorchFile, TorchIndex}

// Has reports whether dir holds weights Open would read.
func Has(dir string) bool {
	for _, name := range WeightFiles {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// Open maps the weights of the model folder dir.
func Open(dir string) (*Checkpoint, error) {
	c := &Checkpoint{Dir: dir, tensors: map[string]*Tensor{}}
	var err error
	switch {
	case exists(dir, SafetensorsFile):
		c.Format = "safetensors"
		err = c.readFiles([]string{SafetensorsFile}, c.readSafetensors)
	case exists(dir, SafetensorsIndex):
		c.Format = "sharded safetensors"
		err = c.readIndex(SafetensorsIndex, c.readSafetensors)
	case exists(dir, TorchFile):
		c.Format = TorchFile
		err = c.readFiles([]string{TorchFile}, c.readTorch)
	case exists(dir, TorchIndex):
		c.Format = "sharded " + TorchFile
		err = c.readIndex(TorchIndex, c.readTorch)
	default:
		err = fmt.Errorf("%w: %s holds no weights: a save_pretrained folder has %s (or %s and its shards) or %s", ErrCheckpoint, dir, SafetensorsFile, SafetensorsIndex, TorchFile)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// readFiles maps each file and reads its tensors with read.
func (c *Checkpoint) readFiles(names []string, read func(m *mapping) error) error {
	for _, name := range names {
		m, err := mapFile(filepath.Join(c.Dir, name))
		if err != nil {
			return err
		}
		c.maps = append(c.maps, m)
		c.Files = append(c.Files, m.path)
		if err := read(m); err != nil {
			return err
		}
	}
	return nil
}

// readIndex reads a sharded checkpoint: the index's weight_map names the
// shard of every tensor; every shard must exist, and every tensor be in
// the shard the index names.
func (c *Checkpoint) readIndex(index string, read func(m *mapping) error) error {
	path := filepath.Join(c.Dir, index)
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		return fmt.Errorf("%w: %s is not a weights index: %w", ErrCheckpoint, path, err)
	}
	if len(idx.WeightMap) == 0 {
		return fmt.Errorf("%w: %s has no weight_map", ErrCheckpoint, path)
	}
	var shards []string
	for name, shard := range idx.WeightMap {
		if shard == "" || filepath.Base(shard) != shard {
			return fmt.Errorf("%w: %s maps %s to %q, which is not a file beside it", ErrCheckpoint, path, name, shard)
		}
		if !slices.Contains(shards, shard) {
			shards = append(shards, shard)
		}
	}
	slices.Sort(shards)
	for _, s := range shards {
		if _, err := os.Stat(filepath.Join(c.Dir, s)); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s names the shard %s, which is not in %s (an incomplete download?)", ErrCheckpoint, path, s, c.Dir)
		}
	}
	if err := c.readFiles(shards, read); err != nil {
		return err
	}
	var wrong []string
	for name, shard := range idx.WeightMap {
		t, ok := c.tensors[name]
		if !ok || filepath.Base(t.File) != shard {
			wrong = append(wrong, name+" ("+shard+")")
		}
	}
	if len(wrong) > 0 {
		slices.Sort(wrong)
		return fmt.Errorf("%w: %s names tensors its shards do not hold: %s", ErrCheckpoint, path, strings.Join(first(wrong, 5), ", "))
	}
	return nil
}

// first is at most n of names, then how many more.
func first(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	return append(slices.Clone(names[:n]), fmt.Sprintf("and %d more", len(names)-n))
}
