package logits

import (
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/record"
)

// keepWriter writes rows with kept fields: their number and types are
// known only at run time, so the row type is built then (reflect.StructOf)
// and parquet-go takes its slower, generic path: only runs that keep
// fields pay for it.
type keepWriter struct {
	pw    *parquet.GenericWriter[any]
	typ   reflect.Type
	base  int // fields of the stored row before the kept ones
	kinds []record.Kind
	int   bool
	rows  []any
}

func newKeepWriter(w io.Writer, opt Options, options []parquet.WriterOption) (*keepWriter, error) {
	base := reflect.TypeFor[stored[string]]()
	if opt.ID == record.Int {
		base = reflect.TypeFor[stored[int64]]()
	}
	fields := reflect.VisibleFields(base)
	for i, name := range opt.Keep {
		fields = append(fields, reflect.StructField{
			Name: "Keep" + strconv.Itoa(i),
			Type: reflect.PointerTo(reflect.TypeOf(record.GoType(opt.KeepKinds[i]))),
			Tag:  reflect.StructTag(`parquet:` + strconv.Quote(name+",optional")),
		})
	}
	for i := range fields {
		fields[i].Index, fields[i].Offset = nil, 0
	}
	typ := reflect.StructOf(fields)
	schema := parquet.SchemaOf(reflect.New(typ).Interface())
	return &keepWriter{pw: parquet.NewGenericWriter[any](w, append(options, schema)...), typ: typ,
		base: base.NumField(), kinds: opt.KeepKinds, int: opt.ID == record.Int}, nil
}

func (w *keepWriter) write(rows []record.LogitsRow) error {
	w.rows = w.rows[:0]
	for i := range rows {
		v := reflect.New(w.typ).Elem()
		var s reflect.Value
		if w.int {
			id, err := intID(rows[i].ID)
			if err != nil {
				return err
			}
			s = reflect.ValueOf(toStored(&rows[i], id))
		} else {
			id, err := stringID(rows[i].ID)
			if err != nil {
				return err
			}
			s = reflect.ValueOf(toStored(&rows[i], id))
		}
		for f := range w.base {
			v.Field(f).Set(s.Field(f))
		}
		for k, kind := range w.kinds {
			if k >= len(rows[i].Keep) {
				break
			}
			x, err := record.Decode(rows[i].Keep[k], kind)
			if err != nil {
				return fmt.Errorf("kept field %d: %w", k, err)
			}
			if x != nil {
				p := reflect.New(reflect.TypeOf(x))
				p.Elem().Set(reflect.ValueOf(x))
				v.Field(w.base + k).Set(p)
			}
		}
		w.rows = append(w.rows, v.Addr().Interface())
	}
	_, err := w.pw.Write(w.rows)
	clear(w.rows)
	return err
}

func (w *keepWriter) Close() error            { return w.pw.Close() }
func (w *keepWriter) Schema() *parquet.Schema { return w.pw.Schema() }
