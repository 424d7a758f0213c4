package record

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Fields names where records keep what the run needs. A name is a key of
// the record or a dotted path into nested objects ("meta.text"); a key
// that itself holds a dot is matched first. Keys match as encoding/json
// matches them: exactly or else without regard to case, the last wins.
type Fields struct {
	ID       string   // default "id"
	Context  string   // default "context"
	Question string   // a string or an array of strings; default: "question" and "questions"
	Keep     []string // copied into every output record
	// Settings, when set, names a field holding the record's own answer
	// settings (an object in transformers' names, see Settings); empty:
	// every record is answered with the run's.
	Settings string
}

// Names returns the fields with their defaults filled in.
func (f Fields) Names() Fields {
	if f.ID == "" {
		f.ID = "id"
	}
	if f.Context == "" {
		f.Context = "context"
	}
	return f
}

// fieldPlan lists the paths a Stream extracts from each record, with the
// index of each role in Stream.vals.
type fieldPlan struct {
	paths     [][]string // each path's segments; paths[i] fills vals[i]
	literal   []string   // the whole name, tried first as one key
	id, ctx   int
	question  int // a string (or, for a custom field, an array)
	questions int // -1 unless the default fields are used
	settings  int // -1 unless Fields.Settings is set
	keep      int // first kept field; they follow in order
	custom    bool
}

func planFields(f Fields) fieldPlan {
	f = f.Names()
	p := fieldPlan{questions: -1, settings: -1}
	add := func(name string) int {
		p.paths = append(p.paths, strings.Split(name, "."))
		p.literal = append(p.literal, name)
		return len(p.paths) - 1
	}
	p.id, p.ctx = add(f.ID), add(f.Context)
	if f.Question == "" {
		p.question, p.questions = add("question"), add("questions")
	} else {
		p.question, p.custom = add(f.Question), true
	}
	if f.Settings != "" {
		p.settings = add(f.Settings)
	}
	p.keep = len(p.paths)
	for _, k := range f.Keep {
		add(k)
	}
	return p
}

// extract fills vals with the raw value of each planned path in obj, a
// valid JSON object; a value absent from the record is left empty.
func (p *fieldPlan) extract(obj []byte, vals []json.RawMessage) {
	for i := range vals {
		vals[i] = nil
	}
	literal := uint64(0) // bit i: path i matched a key as a whole
	eachMember(obj, func(key, val []byte) {
		for i, path := range p.paths {
			if keyIs(key, p.literal[i]) {
				vals[i] = val
				literal |= 1 << (i % 64)
			} else if len(path) > 1 && literal&(1<<(i%64)) == 0 && keyIs(key, path[0]) {
				vals[i] = descend(val, path[1:])
			}
		}
	})
}

// descend follows path through nested objects from val.
func descend(val []byte, path []string) []byte {
	var found []byte
	if len(val) == 0 || val[0] != '{' {
		return nil
	}
	eachMember(val, func(key, v []byte) {
		if keyIs(key, path[0]) {
			if len(path) == 1 {
				found = v
			} else if got := descend(v, path[1:]); got != nil {
				found = got
			}
		}
	})
	return found
}

// keyIs compares a raw JSON key (quotes included) with name.
func keyIs(raw []byte, name string) bool {
	k := raw[1 : len(raw)-1]
	if bytes.IndexByte(k, '\\') >= 0 {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return false
		}
		k = []byte(s)
	}
	return string(k) == name || bytes.EqualFold(k, []byte(name))
}

// eachMember calls f with every key (quoted) and value of the JSON object
// that starts obj (after optional whitespace). obj must be valid JSON.
func eachMember(obj []byte, f func(key, val []byte)) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i = skipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := skipValue(obj, i)
		key := obj[i:kEnd]
		i = skipSpace(obj, kEnd)
		i = skipSpace(obj, i+1) // the ':'
		vEnd := skipValue(obj, i)
		f(key, obj[i:vEnd])
		i = skipSpace(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(b)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipValue(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[j])) {
		j++
	}
	return j
}
