package output

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/partfolder"
	"qa-shard/internal/pin"
	"qa-shard/internal/record"
	"qa-shard/journal"
)

// parts writes the answers as a folder of Parquet files, part-00000.parquet,
// ...: one schema for answers and errors (error is null when answered;
// the answer columns are null for an error; question_id is null unless
// the question had an id), sealed at every checkpoint as
// the logits are, so a resumed run keeps every sealed part.
type parts struct {
	dir    string
	n      int
	cur    *part
	typ    reflect.Type
	schema *parquet.Schema
	keep   []record.Kind
	id     record.Kind
	list   bool // the answers column (top-k > 1)
	rows   []any
	pins   *pin.Folder
	// sums chains the sealed parts (journal.State.AnswerDigest), each of
	// which names run in its metadata (logits.RunKey).
	sums, run string
}

// The fixed columns' places in the row type, after the id and kept
// fields: their names are record.AnswerColumns, in this order.
const (
	colQuestion = iota
	colQuestionID
	colAnswer
	colScore
	colStart
	colEnd
	colSpanLogit
	colNullLogit
	colWindows
	colFile
	colOffset
	colRow
	colError
	colAnswers // only with top-k > 1
)

// columnTypes are the Go types of the fixed columns but the answers
// list, by place.
var columnTypes = [...]any{colQuestion: "", colQuestionID: "", colAnswer: "", colScore: 0.0, colStart: int64(0), colEnd: int64(0),
	colSpanLogit: 0.0, colNullLogit: 0.0, colWindows: int64(0), colFile: "", colOffset: int64(0), colRow: int64(0), colError: ""}

// candidate is one element of the answers list.
type candidate struct {
	Answer    string  `parquet:"answer"`
	Score     float64 `parquet:"score"`
	Start     int64   `parquet:"start"`
	End       int64   `parquet:"end"`
	SpanLogit float64 `parquet:"span_logit"`
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
	p := &parts{dir: o.Answers, n: keep, keep: o.Schema.Keep, id: o.Schema.ID, list: o.TopK > 1, pins: pins, sums: st.AnswerDigest, run: st.Run}
	p.typ = rowType(o)
	p.schema = parquet.SchemaOf(reflect.New(p.typ).Interface())
	return p, nil
}

// rowType is the row's Go type: id, kept fields, then the fixed columns.
func rowType(o Options) reflect.Type {
	ptr := func(v any) reflect.Type { return reflect.PointerTo(reflect.TypeOf(v)) }
	field := func(i int, t reflect.Type, name string) reflect.StructField {
		return reflect.StructField{Name: "F" + strconv.Itoa(i), Type: t, Tag: reflect.StructTag("parquet:" + strconv.Quote(name+",optional"))}
	}
	fs := []reflect.StructField{field(0, ptr(record.GoType(o.Schema.ID)), record.IDColumn)}
	for i, name := range o.Keep {
		fs = append(fs, field(len(fs), ptr(record.GoType(o.Schema.Keep[i])), name))
	}
	for col, name := range record.AnswerColumns {
		if col == colAnswers {
			if o.TopK > 1 {
				f := field(len(fs), reflect.TypeFor[[]candidate](), name)
				f.Tag = reflect.StructTag("parquet:" + strconv.Quote(name+",list"))
				fs = append(fs, f)
			}
			continue
		}
		fs = append(fs, field(len(fs), ptr(columnTypes[col]), name))
	}
	return reflect.StructOf(fs)
}

func (p *parts) newRow(idRaw []byte, keep []json.RawMessage) (reflect.Value, error) {
	v := reflect.New(p.typ).Elem()
	if err := set(v.Field(0), idRaw, p.id); err != nil {
		return v, fmt.Errorf("id: %w", err)
	}
	for i, kind := range p.keep {
		var raw []byte
		if i < len(keep) {
			raw = keep[i]
		}
		if err := set(v.Field(1+i), raw, kind); err != nil {
			return v, fmt.Errorf("kept field %d: %w", i, err)
		}
	}
	return v, nil
}

// set stores a JSON value of kind k into a pointer field (nil for null).
func set(f reflect.Value, raw []byte, k record.Kind) error {
	x, err := record.Decode(raw, k)
	if err != nil || x == nil {
		return err
	}
	ptr := reflect.New(reflect.TypeOf(x))
	ptr.Elem().Set(reflect.ValueOf(x))
	f.Set(ptr)
	return nil
}

func setPtr[T any](f reflect.Value, x T) { f.Set(reflect.ValueOf(&x)) }

func (p *parts) fixed(v reflect.Value, col int) reflect.Value { return v.Field(1 + len(p.keep) + col) }

func (p *parts) WriteAnswer(r record.AnswerRecord) error {
	v, err := p.newRow(r.ID, r.Keep)
	if err != nil {
		return err
	}
	setPtr(p.fixed(v, colQuestion), r.Question)
	if r.QuestionID != "" {
		setPtr(p.fixed(v, colQuestionID), r.QuestionID)
	}
	setPtr(p.fixed(v, colAnswer), r.Answer)
	setPtr(p.fixed(v, colScore), r.Score)
	setPtr(p.fixed(v, colStart), int64(r.Start))
	setPtr(p.fixed(v, colEnd), int64(r.End))
	setPtr(p.fixed(v, colSpanLogit), r.SpanLogit)
	setPtr(p.fixed(v, colNullLogit), r.NullLogit)
	setPtr(p.fixed(v, colWindows), int64(r.Windows))
	if p.list {
		cands := make([]candidate, len(r.Answers))
		for i, a := range r.Answers {
			cands[i] = candidate{Answer: a.Answer, Score: a.Score, Start: int64(a.Start), End: int64(a.End), SpanLogit: a.SpanLogit}
		}
		p.fixed(v, colAnswers).Set(reflect.ValueOf(cands))
	}
	return p.add(v)
}

func (p *parts) WriteError(r record.ErrorRecord) error {
	v, err := p.newRow(r.ID, r.Keep)
	if err != nil {
		return err
	}
	if r.Question != "" {
		setPtr(p.fixed(v, colQuestion), r.Question)
	}
	if r.QuestionID != "" {
		setPtr(p.fixed(v, colQuestionID), r.QuestionID)
	}
	setPtr(p.fixed(v, colFile), r.Pos.File)
	if r.Pos.Row {
		setPtr(p.fixed(v, colRow), r.Pos.At)
	} else {
		setPtr(p.fixed(v, colOffset), r.Pos.At)
	}
	setPtr(p.fixed(v, colError), r.Error)
	return p.add(v)
}

// add buffers a row; rows reach the part at seal or every few thousand.
func (p *parts) add(v reflect.Value) error {
	p.rows = append(p.rows, v.Addr().Interface())
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
