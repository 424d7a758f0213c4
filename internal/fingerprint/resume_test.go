package fingerprint

import (
	"errors"
	"strings"
	"testing"

	"qa-shard/internal/readstate"
)

func TestCheckRead(t *testing.T) {
	now := []Found{
		{File: readstate.File{File: 0, Name: "a.jsonl", Size: 10, ModTime: 1e18}, Path: "in/a.jsonl"},
		{File: readstate.File{File: 1, Name: "b.jsonl", Size: 20, ModTime: 2e18}, Path: "in/b.jsonl"},
	}
	a := readstate.File{File: 0, Name: "a.jsonl", Size: 10, ModTime: 1e18}
	grown := a
	grown.Size = 11
	for _, c := range []struct {
		name  string
		read  []readstate.File
		whole int
		want  string // "" when the files agree
	}{
		{"same", []readstate.File{a}, 1, ""},
		{"resumed in, size not compared", []readstate.File{grown}, 0, ""},
		{"read whole, grown", []readstate.File{grown}, 1, "in/a.jsonl had 11 bytes, modified 2001-09-09T01:46:40Z, and now has 10 bytes, modified 2001-09-09T01:46:40Z"},
		{"another place", []readstate.File{{File: 1, Name: "a.jsonl"}}, 0, "the journal read a.jsonl as input file 2, which it no longer is"},
		{"gone", []readstate.File{{File: 2, Name: "c.jsonl"}}, 0, "the journal read c.jsonl as input file 3"},
	} {
		err := CheckRead(now, c.read, c.whole)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want ErrChanged with %q", c.name, err, c.want)
		}
	}
}

func TestCheckReread(t *testing.T) {
	cur := readstate.File{Name: "a.jsonl", From: 5, SHA256: "abc"}
	if err := CheckReread("in/a.jsonl", cur, 9, "abc"); err != nil {
		t.Errorf("same hash: %v", err)
	}
	if err := CheckReread("in/a.jsonl", cur, 9, "abd"); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "in/a.jsonl: what was read of it before the resume point (from 5 to 9)") {
		t.Errorf("another hash: %v", err)
	}
	if err := CheckReread("-", cur, 9, "abd"); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "standard input: its first 9 bytes") {
		t.Errorf("another stream: %v", err)
	}
	if err := CheckResumedIn(cur, readstate.Position{File: 1}, true); !errors.Is(err, ErrChanged) {
		t.Errorf("resumed in another file than the position's: %v", err)
	}
	if err := CheckResumedIn(cur, readstate.Position{File: 0}, false); !errors.Is(err, ErrChanged) {
		t.Errorf("resumed outside the share: %v", err)
	}
	if err := CheckResumedIn(cur, readstate.Position{File: 0}, true); err != nil {
		t.Errorf("resumed in its share: %v", err)
	}
}

func TestOutputChecks(t *testing.T) {
	for _, c := range []struct {
		name, got string
		differs   bool
	}{
		{"output as long", OutputLength("o", 10, 10), false},
		{"output longer (cut)", OutputLength("o", 12, 10), false},
		{"output shorter", OutputLength("o", 9, 10), true},
		{"saved, running, longer", SavedLength("o", 12, 10, 3, false), false},
		{"saved, complete, longer", SavedLength("o", 12, 10, 3, true), true},
		{"saved, shorter", SavedLength("o", 9, 10, 3, false), true},
		{"text whole", AnswersText(10, true, 3, 3), false},
		{"text empty", AnswersText(0, false, 0, 0), false},
		{"text cut in a record", AnswersText(10, false, 3, 3), true},
		{"text other count", AnswersText(10, true, 2, 3), true},
		{"digest same", AnswersDigest(10, true, 10, []byte("h"), []byte("h")), false},
		{"digest unreadable", AnswersDigest(10, false, 10, []byte("h"), nil), true},
		{"digest of other bytes", AnswersDigest(10, true, 9, []byte("h"), []byte("h")), true},
		{"digest differs", AnswersDigest(10, true, 10, []byte("h"), []byte("i")), true},
		{"part of this run", PartRun("p", "r1", "r1"), false},
		{"part of an unknown run", PartRun("p", "", "r1"), false},
		{"part of another run", PartRun("p", "r2", "r1"), true},
		{"a part of the complete run", ExtraPart("d", "part-1", 1, 2, "logits"), false},
		{"a part added after", ExtraPart("d", "part-2", 2, 2, "logits"), true},
		{"logits parts agree", LogitsParts("l", 2, nil, nil, "d", "d"), false},
		{"logits part missing", LogitsParts("l", 2, []string{"part-1"}, nil, "d", "d"), true},
		{"logits part of another run", LogitsParts("l", 2, nil, []string{"part-2"}, "d", "d"), true},
		{"logits parts changed", LogitsParts("l", 2, nil, nil, "d", "e"), true},
		{"parts agree", AnswerParts(2, 5, 5, "d", "d"), false},
		{"parts without a digest", AnswerParts(2, 5, 5, "d", ""), false},
		{"parts other rows", AnswerParts(2, 4, 5, "d", "d"), true},
		{"parts other digest", AnswerParts(2, 5, 5, "d", "e"), true},
	} {
		if (c.got != "") != c.differs {
			t.Errorf("%s: %q, want a difference: %v", c.name, c.got, c.differs)
		}
	}
}
