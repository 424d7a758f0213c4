package output

import (
	"fmt"
	"os"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/partfolder"
	"qa-shard/output/logits"
)

// FormatKey and FormatVersion are stored in every answers part's metadata.
const (
	FormatKey     = "qa_shard.answers.version"
	FormatVersion = "1"
)

// part is one Parquet file of an answers folder, written under a .tmp name
// and renamed when sealed, so a reader never sees a partial part.
type part struct {
	file *partfolder.Part
	pw   *parquet.GenericWriter[any]
}

// createPart starts the part at path; run, when set, is named in its
// metadata (logits.RunKey), as the logits parts name theirs.
func createPart(path string, schema *parquet.Schema, run string) (*part, error) {
	f, err := partfolder.Create(path, func(name string) (partfolder.File, error) { return os.Create(name) })
	if err != nil {
		return nil, err
	}
	options := []parquet.WriterOption{schema, parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("qa-shard", "", ""), parquet.KeyValueMetadata(FormatKey, FormatVersion)}
	if run != "" {
		options = append(options, parquet.KeyValueMetadata(logits.RunKey, run))
	}
	pw := parquet.NewGenericWriter[any](f, options...)
	return &part{file: f, pw: pw}, nil
}

// close writes the footer, syncs and renames the part into place.
func (p *part) close() error {
	if err := p.file.Seal(p.pw); err != nil {
		return fmt.Errorf("sealing %s: %w", p.file.Path(), err)
	}
	return nil
}

func (p *part) abort() { p.file.Abort() }
