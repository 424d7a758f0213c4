package output

import (
	"errors"
	"fmt"
	"io"
	"os"

	"qa-shard/internal/format"
	"qa-shard/internal/partfolder"
	"qa-shard/internal/record"
	"qa-shard/journal"
)

// Whole is an answers file or folder written from start to end by another
// command than a run (qa-shard merge): with the same writer per format as
// a run, so its records are the bytes (or rows) a run writes, but with no
// journal and nothing to resume. It is created at a path nobody else uses
// (the caller's temporary name, renamed into place once Close succeeded);
// an existing path is refused, never opened for writing.
type Whole struct {
	path string
	form format.Format
	sink sink
	text *stream // the sink, for JSONL, gzip and zstd
}

// CreateWhole creates the answers at path, in format form (not the one
// path's name says: path is a temporary name), with the columns of o
// (Keep, Schema, TopK; o.Answers is ignored).
func CreateWhole(path string, form format.Format, o Options) (*Whole, error) {
	w := &Whole{path: path, form: form}
	if form == format.Parquet {
		if err := os.Mkdir(path, 0o755); err != nil {
			return nil, err
		}
		o.Answers = path
		p, err := openParts(o, journal.State{})
		if err != nil {
			return nil, err
		}
		w.sink = p
		return w, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	w.text = newStream(f, form, 0, nil, o.Keep) // a merged file has no journal, so no digest state
	w.sink = w.text
	return w, nil
}

// WriteAnswer writes one answer record.
func (w *Whole) WriteAnswer(r record.AnswerRecord) error { return w.sink.WriteAnswer(r) }

// WriteError writes one error record.
func (w *Whole) WriteError(r record.ErrorRecord) error { return w.sink.WriteError(r) }

// CopyText appends the answers r holds, a whole JSONL answers file stored
// as from (a rank's, whose journal vouches that it ends a record and a
// compressed member or frame): as they are when from is the format being
// written (gzip members and zstd frames concatenate into one valid file),
// else decompressed and compressed again as this format says. Parquet
// answers take records, not text.
func (w *Whole) CopyText(r io.Reader, from format.Format) error {
	if w.text == nil {
		return fmt.Errorf("%s answers are written record by record, not copied as text", w.form)
	}
	if err := w.text.seal(); err != nil { // what was written before, a member of its own
		return err
	}
	if from == w.form {
		_, err := io.Copy(w.text.buf, r)
		return err
	}
	text, closeText, err := format.Decompress(r, from)
	if err != nil {
		return err
	}
	defer closeText()
	_, err = io.Copy(w.text.unit, text)
	return err
}

// Seal ends what was written so far as one unit: a gzip member or zstd
// frame ended, a Parquet part sealed.
func (w *Whole) Seal() error { return w.sink.seal() }

// Close seals what was written and makes it durable: the file synced and
// closed, or the folder's parts sealed and the folder synced. After a
// failure the caller removes path (Abort first).
func (w *Whole) Close() error {
	if err := w.sink.seal(); err != nil {
		return err
	}
	if w.text == nil {
		return partfolder.Dir(w.path).Sync()
	}
	return errors.Join(w.text.file.Sync(), w.text.file.Close())
}

// Abort drops an open part or closes the file; the caller removes path.
func (w *Whole) Abort() { w.sink.close() }
