package output

import (
	"errors"
	"fmt"
	"os"

	"github.com/parquet-go/parquet-go"
)

// FormatKey and FormatVersion are stored in every answers part's metadata.
const (
	FormatKey     = "qa_shard.answers.version"
	FormatVersion = "1"
)

// part is one Parquet file of an answers folder, written under a .tmp name
// and renamed when sealed, so a reader never sees a partial part.
type part struct {
	path string
	f    *os.File
	pw   *parquet.GenericWriter[any]
}

func createPart(path string, schema *parquet.Schema) (*part, error) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return nil, err
	}
	pw := parquet.NewGenericWriter[any](f, schema, parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("qa-shard", "", ""), parquet.KeyValueMetadata(FormatKey, FormatVersion))
	return &part{path: path, f: f, pw: pw}, nil
}

// close writes the footer, syncs and renames the part into place.
func (p *part) close() error {
	err := p.pw.Close()
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p.path+".tmp", p.path)
	}
	if err != nil {
		os.Remove(p.path + ".tmp")
		return fmt.Errorf("sealing %s: %w", p.path, err)
	}
	return nil
}

func (p *part) abort() {
	p.f.Close()
	if err := os.Remove(p.path + ".tmp"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return
	}
}
