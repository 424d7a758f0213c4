package output

import (
	"fmt"
	"reflect"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/partfolder"
	"qa-shard/internal/pin"
	"qa-shard/internal/record"
	"qa-shard/journal"
)

// parts writes the answers as a folder of Parquet files, part-00000.parquet,
// ...: one schema for answers and errors (record.ParquetRows: error is
// null when answered; the answer columns are null for an error;
// question_id is null unless the question had an id), sealed at every
// checkpoint as the logits are, so a resumed run keeps every sealed part.
type parts struct {
	dir    string
	n      int
	cur    *part
	layout record.ParquetRows
	schema *parquet.Schema
	rows   []any
	pins   *pin.Folder
	// sums chains the sealed parts (journal.State.AnswerDigest), each of
	// which names run in its metadata (logits.RunKey).
	sums, run string
}

// openParts opens the answers folder after the parts st records (none
// for a new run).
func openParts(o Options, st journal.State) (*parts, error) {
	keep := st.AnswerParts
	if err := partfolder.Open(o.Answers, keep); err != nil {
		return nil, err
	}
	pins, err := pin.Parts(o.Answers, keep, partfolder.Path)
	if err != nil {
		return nil, err
	}
	p := &parts{dir: o.Answers, n: keep, layout: record.NewParquetRows(o.Keep, o.Schema, o.TopK), pins: pins, sums: st.AnswerDigest, run: st.Run}
	p.schema = parquet.SchemaOf(reflect.New(p.layout.Type()).Interface())
	return p, nil
}

func (p *parts) WriteAnswer(r record.AnswerRecord) error {
	row, err := p.layout.Answer(r)
	if err != nil {
		return err
	}
	return p.add(row)
}

func (p *parts) WriteError(r record.ErrorRecord) error {
	row, err := p.layout.Error(r)
	if err != nil {
		return err
	}
	return p.add(row)
}

// add buffers a row; rows reach the part at seal or every few thousand.
func (p *parts) add(row any) error {
	p.rows = append(p.rows, row)
	if len(p.rows) >= 4096 {
		return p.flush()
	}
	return nil
}

func (p *parts) flush() error {
	if len(p.rows) == 0 {
		return nil
	}
	if p.cur == nil {
		w, err := createPart(partfolder.Path(p.dir, p.n), p.schema, p.run)
		if err != nil {
			return err
		}
		p.cur = w
	}
	_, err := p.cur.pw.Write(p.rows)
	clear(p.rows)
	p.rows = p.rows[:0]
	return err
}

func (p *parts) seal() error {
	if err := p.flush(); err != nil {
		return err
	}
	if p.cur == nil {
		return nil
	}
	err := p.cur.close()
	p.cur = nil
	if err != nil {
		return err
	}
	if err := p.pins.Sealed(p.n); err != nil {
		return err
	}
	footer, err := partfolder.FooterOf(partfolder.Path(p.dir, p.n))
	if err != nil {
		return fmt.Errorf("reading back the part just sealed: %w", err)
	}
	p.sums = partfolder.Chain(p.sums, footer)
	p.n++
	return nil
}

func (p *parts) digest() string { return p.sums }

func (p *parts) check() error { return p.pins.Check() }

func (p *parts) size() (int64, int) { return 0, p.n }

func (p *parts) hashState() string { return "" } // parts are pinned and counted, not hashed

func (p *parts) syncer() journal.Syncer { return partfolder.Dir(p.dir) }

func (p *parts) close() {
	if p.cur != nil {
		p.cur.abort()
		p.cur = nil
	}
}
