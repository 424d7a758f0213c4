package input

import (
	"fmt"
	"strings"

	"qa-shard/internal/format"
	"qa-shard/internal/record"
)

// sampled is what the first records say of the fields the flags name:
// whether any of them holds each (record.Mapper's Names, in order), and
// the fields the first record has, for a message. n is how many records
// were looked at (0: nothing known, nothing checked); columns is true for
// a Parquet file, whose columns are known at once.
type sampled struct {
	present []bool
	keys    []string
	n       int
	columns bool
	files   int // files after the first whose first records were looked at too
}

// sampleFields looks at the first lines of a JSONL file: each field is
// present when some record holds it (null counts). Lines that are no JSON
// object say nothing.
func sampleFields(lines [][]byte, f record.Fields) sampled {
	var s sampled
	for _, line := range lines {
		p, ok := record.Present(line, f)
		if !ok {
			continue
		}
		if s.present == nil {
			s.present, s.keys = p, record.Keys(line)
		}
		for i, v := range p {
			s.present[i] = s.present[i] || v
		}
		s.n++
	}
	return s
}

// sampleFiles bounds the files whose first records are looked at for a
// field the first file's do not have (fields kept from some files only).
const sampleFiles = 8

// sampleMore looks at the first records of the files after the first
// one, up to sampleFiles of them, while a field checkFields checks is
// still missing.
func sampleMore(files []File, opt record.Options, out *first) error {
	for i := 0; i < len(files) && i < sampleFiles && len(missing(out.fields, opt.Fields)) > 0; i++ {
		if files[i].Path == "-" || files[i].Format == format.SQuAD {
			continue
		}
		var more first
		more.s.Keep = make([]record.Kind, len(opt.Fields.Keep))
		found, err := firstRecord(&files[i], opt, &more)
		if err != nil {
			return err
		}
		if !found || more.fields.n == 0 {
			continue
		}
		for k, v := range more.fields.present {
			out.fields.present[k] = out.fields.present[k] || v
		}
		out.fields.files++
	}
	return nil
}

// checked are the places (in record.Mapper's Names) of the fields
// checkFields checks: the kept fields, the context, and the id when a
// name other than the default is given.
func checked(fields record.Fields) []int {
	names := record.NewMapper(record.Options{Fields: fields}).Names()
	var out []int
	for i := len(names) - len(fields.Keep); i < len(names); i++ {
		out = append(out, i)
	}
	out = append(out, indexOf(names, fields.Names().Context))
	if id := fields.Names().ID; id != "id" {
		out = append(out, indexOf(names, id))
	}
	return out
}

// missing are the checked fields no record looked at has.
func missing(s sampled, fields record.Fields) []int {
	if s.n == 0 {
		return nil
	}
	var out []int
	for _, i := range checked(fields) {
		if i >= 0 && i < len(s.present) && !s.present[i] {
			out = append(out, i)
		}
	}
	return out
}

// checkFields refuses, before the run, a field the flags name that none
// of the first records has: a misspelt --keep-fields would fill every
// record with null, a misspelt --context-field make every record an error
// record, a misspelt --id-field be ignored without a word (--question-field
// is not checked: records may simply not ask questions of their own). The
// default id is not checked (records without an id get positional ids),
// but the context is: a corpus whose first records have none has its
// text under another name. The first records of a few more files are
// looked at first (sampleMore): a field kept from some files only passes.
func checkFields(f first, fields record.Fields) error {
	s := f.fields
	gone := missing(s, fields)
	if len(gone) == 0 {
		return nil
	}
	names := record.NewMapper(record.Options{Fields: fields}).Names()
	where := fmt.Sprintf("none of the first %d records of %s has", s.n, f.name)
	if s.n == 1 {
		where = fmt.Sprintf("the first record of %s does not have", f.name)
	}
	if s.columns {
		where = fmt.Sprintf("%s has no column", f.name)
	}
	if s.files > 0 {
		where = fmt.Sprintf("neither the first records of %s nor those of the %d input files after it have", f.name, s.files)
	}
	has := fmt.Sprintf("(%s has: %s)", f.name, strings.Join(s.keys, ", "))
	i := gone[0]
	name := names[i]
	keepFrom := len(names) - len(fields.Keep)
	switch {
	case i >= keepFrom:
		return fmt.Errorf("%w: --keep-fields %s: %s a field %q %s: check the name (fields match exactly, else without regard to case; a dotted path reaches into objects)", ErrInput, name, where, name, has)
	case name == fields.Names().Context:
		flag := "--context-field " + name
		if fields.Context == "" || fields.Context == "context" {
			flag = "--context-field (default context)"
		}
		return fmt.Errorf("%w: %s: %s a field %q to answer questions from %s: name the field holding the text with --context-field", ErrInput, flag, where, name, has)
	}
	return fmt.Errorf("%w: --id-field %s: %s a field %q %s: check the name, or leave --id-field out to give records without an id their position (<file>:<offset>)", ErrInput, name, where, name, has)
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}
