package record

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestMapAskedChecks: a record given by its parts is checked as a JSON
// record is: no questions at all, a context without text, and the missing
// id of a run of integer ids are error records; kept fields take their
// kinds.
func TestMapAskedChecks(t *testing.T) {
	none := func(string) json.RawMessage { return nil }
	pos := Position{File: "squad.json", At: 4, Row: true}
	var d Document
	d.Pos = pos
	NewMapper(Options{}).MapAsked("text", nil, none, &d)
	if !errors.Is(d.Err, ErrNoQuestion) || string(d.ID) != `"squad.json:4"` {
		t.Errorf("no questions: id %s, err %v", d.ID, d.Err)
	}
	d = Document{Pos: pos}
	NewMapper(Options{}).MapAsked(" \n", []Asked{{ID: "a", Text: "q"}}, none, &d)
	if !errors.Is(d.Err, ErrEmptyContext) {
		t.Errorf("empty context: %v", d.Err)
	}
	d = Document{Pos: pos}
	NewMapper(Options{Schema: Schema{ID: Int}}).MapAsked("text", []Asked{{ID: "a", Text: "q"}}, none, &d)
	if !errors.Is(d.Err, ErrBadID) {
		t.Errorf("a run of integer ids: %v", d.Err)
	}
	d = Document{Pos: pos}
	opt := Options{Fields: Fields{Keep: []string{"title"}}, Schema: Schema{Keep: []Kind{Int}}}
	NewMapper(opt).MapAsked("text", []Asked{{ID: "a", Text: "q"}}, func(string) json.RawMessage { return json.RawMessage(`"Normans"`) }, &d)
	if !errors.Is(d.Err, ErrBadField) {
		t.Errorf("a kept title in a run whose first record had an integer there: %v", d.Err)
	}
	d = Document{Pos: pos}
	NewMapper(Options{Questions: []string{" g "}}).MapAsked("text", []Asked{{ID: "a", Text: " g"}, {Text: "h"}}, none, &d)
	if d.Err != nil || len(d.Questions) != 3 || d.Questions[1] != "g" || d.QuestionID(0) != "" || d.QuestionID(1) != "a" || d.QuestionID(2) != "" || d.QuestionID(3) != "" {
		t.Errorf("a global question also asked with an id: %q %q (%v)", d.Questions, d.QuestionIDs, d.Err)
	}
}
