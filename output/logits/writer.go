package logits

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/partfolder"
	"qa-shard/internal/record"
)

// file is what a Writer needs of its file; *os.File is one.
type file = partfolder.File

// createFile creates a part's temporary file; tests inject storage faults
// through it.
var createFile = func(name string) (file, error) {
	return os.OpenFile(name, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
}

// rowWriter writes Rows in the file's layout.
type rowWriter interface {
	write(rows []record.LogitsRow) error
	Close() error
	Schema() *parquet.Schema
}

// create starts a logits file that will appear at path when Close succeeds.
// A stale path+".tmp" from an earlier crashed run is overwritten.
func create(path string, opt Options) (*Writer, error) {
	f, err := partfolder.Create(path, createFile)
	if err != nil {
		return nil, fmt.Errorf("logits: create %s: %w", path+partfolder.TempSuffix, err)
	}
	options := []parquet.WriterOption{
		// zstd at its default level: logits are near-random floats and gain
		// little from any codec, but token ids, offsets and the repeated
		// id/question strings shrink several-fold at little CPU cost.
		parquet.Compression(&parquet.Zstd),
		parquet.MaxRowsPerRowGroup(RowsPerGroup),
		parquet.CreatedBy("qa-shard", "", ""),
		// Lets a later decoder tell this layout from a future one.
		parquet.KeyValueMetadata(FormatKey, FormatVersion),
	}
	if opt.Run != "" {
		options = append(options, parquet.KeyValueMetadata(RunKey, opt.Run))
	}
	var pw rowWriter
	switch {
	case len(opt.Keep) > 0:
		pw, err = newKeepWriter(f, opt, options)
	case opt.ID == record.Int:
		pw = &staticWriter[int64]{pw: parquet.NewGenericWriter[stored[int64]](f, options...), id: intID}
	default:
		pw = &staticWriter[string]{pw: parquet.NewGenericWriter[stored[string]](f, options...), id: stringID}
	}
	if err != nil {
		f.Abort()
		return nil, err
	}
	return &Writer{part: f, pw: pw}, nil
}

// staticWriter writes rows without kept fields.
type staticWriter[ID string | int64] struct {
	pw  *parquet.GenericWriter[stored[ID]]
	id  func(json.RawMessage) (ID, error)
	buf []stored[ID]
}

func (w *staticWriter[ID]) write(rows []record.LogitsRow) error {
	w.buf = w.buf[:0]
	for i := range rows {
		id, err := w.id(rows[i].ID)
		if err != nil {
			return err
		}
		w.buf = append(w.buf, toStored(&rows[i], id))
	}
	_, err := w.pw.Write(w.buf)
	clear(w.buf)
	return err
}

func (w *staticWriter[ID]) Close() error            { return w.pw.Close() }
func (w *staticWriter[ID]) Schema() *parquet.Schema { return w.pw.Schema() }

// Write appends rows. The values are copied, so the caller may reuse the
// slices once Write returns. Rows are validated first, so a bad row leaves
// nothing of its batch written.
func (w *Writer) Write(rows []record.LogitsRow) error {
	if w.closed {
		return ErrClosed
	}
	for i := range rows {
		if err := check(&rows[i]); err != nil {
			return fmt.Errorf("logits: %s: %w", w.part.Temp(), err)
		}
	}
	if err := w.pw.write(rows); err != nil {
		return fmt.Errorf("logits: write %s: %w", w.part.Temp(), err)
	}
	return nil
}

// Close writes the footer, syncs the file and renames it to its final path.
// On failure the temporary file is removed: it could not be read anyway.
func (w *Writer) Close() error {
	if w.closed {
		return ErrClosed
	}
	w.closed = true
	if err := w.part.Seal(w.pw); err != nil {
		return fmt.Errorf("logits: close %s: %w", w.part.Path(), err)
	}
	return nil
}

// Abort discards the file without publishing it, for runs that fail or are
// cancelled: closing them instead would rename a partial file into place.
func (w *Writer) Abort() error {
	if w.closed {
		return ErrClosed
	}
	w.closed = true
	if err := w.part.Abort(); err != nil {
		return fmt.Errorf("logits: abort %s: %w", w.part.Temp(), err)
	}
	return nil
}

// Schema is the Parquet schema the file is written with.
func (w *Writer) Schema() *parquet.Schema { return w.pw.Schema() }

// check refuses a row whose per-token columns differ in length.
func check(r *record.LogitsRow) error {
	n := len(r.InputIDs)
	if len(r.SequenceIDs) != n || len(r.WordIDs) != n || len(r.OffsetStart) != n ||
		len(r.OffsetEnd) != n || len(r.StartLogits) != n || len(r.EndLogits) != n {
		return fmt.Errorf("%s question %d window %d: %w (input_ids %d, sequence_ids %d, word_ids %d, offset_start %d, offset_end %d, start_logits %d, end_logits %d)",
			r.Pos, r.QuestionIndex, r.Window, ErrLengthMismatch, n, len(r.SequenceIDs), len(r.WordIDs),
			len(r.OffsetStart), len(r.OffsetEnd), len(r.StartLogits), len(r.EndLogits))
	}
	return nil
}
