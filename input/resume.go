package input

import (
	"crypto/sha256"
	"fmt"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/format"
	"qa-shard/internal/readstate"
)

// resume continues where the journal's input state says, verifying what
// the continuation relies on:
//
//   - every file the process finished before (by the journal's account)
//     has the same name, place in the order, size and modification time:
//     the output holds its answers. These files are not read again.
//   - the file it resumes in is re-read from where this process started
//     in it up to the resume point, through the same SHA-256 as the first
//     time, and must give the journal's hash: a plain file's bytes before
//     the point, a compressed file's text (which must be decompressed to
//     find the point anyway), a Parquet file's column chunks of the row
//     groups up to the one holding the point (which must be read to
//     continue anyway), a SQuAD dataset whole (it is one JSON document).
//     This costs at most the process's own block. Its
//     size and time may differ: what the output relies on is the content
//     before the point, which the hash checks. So a corrupt or truncated
//     file that stopped a run can be replaced by a good copy and resumed.
//   - the sizes of all files, which decide how ranks split them, are in
//     the run's fingerprint (see Fingerprint), checked by the journal.
//
// Anything else (a file changed, removed or added) is ErrChanged, naming
// the file: the journal's output would not be what this input gives.
// The reading is here; the comparisons, and the words of each refusal,
// are package fingerprint's (what a resume compares).
func (s *Reader) resume(st readstate.State) error {
	if err := fingerprint.CheckRead(s.plan.found(), st.Files, len(st.Files)-1); err != nil {
		return err
	}
	cur := st.Files[len(st.Files)-1]
	k := -1
	for i, p := range s.plan.Parts {
		if p.File == st.Next.File {
			k = i
		}
	}
	if err := fingerprint.CheckResumedIn(cur, st.Next, k >= 0); err != nil {
		return err
	}
	s.marks.resumed(st)
	s.part = k

	part, f := s.plan.Parts[k], &s.plan.Files[st.Next.File]
	for _, p := range s.plan.Parts[:k] {
		s.doneBytes += p.Bytes
	}
	s.hash, s.from = sha256.New(), cur.From
	var state hashState
	switch f.Format {
	case format.SQuAD:
		r, err := s.openSQuAD(f, part)
		if err != nil {
			return err
		}
		s.cur, state = r, r.state
		s.pins.note(st.Next.File, r.h)
		s.partDone = r.seek(st.Next.Offset)
	case format.Parquet:
		r, err := s.openRows(f, part)
		if err != nil {
			return err
		}
		s.cur = r
		s.pins.note(st.Next.File, r.h)
		for r.r.g < len(r.r.groups) && r.r.groups[r.r.g].row < st.Next.Offset {
			if err := r.r.load(); err != nil {
				return err
			}
		}
		r.state = snapshotOf(s.hash)
		state = r.state
		for _, g := range r.r.groups[:r.r.g] {
			span := g.hi - g.lo
			s.partDone += span * (min(st.Next.Offset, g.row+g.rows) - g.row) / g.rows // as rowReader shares it out
		}
		if st.Next.Offset < r.r.end {
			if err := r.r.skip(st.Next.Offset); err != nil {
				return err
			}
		} else {
			r.r.row = max(r.r.end, st.Next.Offset)
		}
	default:
		r, err := s.openLines(f, part, st.Next.Offset, cur.From)
		if err != nil {
			return err
		}
		s.cur, state = r, snapshotOf(s.hash)
		s.pins.note(st.Next.File, r.h)
		if r.packed {
			s.partDone = r.t.raw.n
		} else {
			s.partDone = max(0, min(part.Bytes, st.Next.Offset-part.From))
		}
	}
	s.doneBytes += s.partDone
	return fingerprint.CheckReread(f.Path, cur, st.Next.Offset, sum(state))
}

// found is the plan's files as a resume finds them now, for the checks
// of package fingerprint.
func (p *Plan) found() []fingerprint.Found {
	now := make([]fingerprint.Found, len(p.Files))
	for i, f := range p.Files {
		now[i] = fingerprint.Found{File: readstate.File{File: i, Name: f.Name, Size: f.Size, ModTime: f.ModTime.UnixNano()}, Path: f.Path}
	}
	return now
}

// CheckComplete is what --resume checks of a run that had already
// finished into output (st is its journal's input state): every file it
// read is still the file of that name at that place, with the size and
// modification time it had when read, so "already complete" never
// stands for answers of another input (a file replaced under the same
// name, grown or shrunk). The files are not read. A run that read
// standard input is not checked: the stream is not there to compare.
func (p *Plan) CheckComplete(output string, st readstate.State) error {
	if len(p.Files) == 1 && p.Files[0].Path == "-" {
		return nil
	}
	if err := fingerprint.CheckRead(p.found(), st.Files, len(st.Files)); err != nil {
		return fmt.Errorf("%s is complete, but not for the input as it is now: %w; its answers are for the input it read: to answer the input as it is now, start over with --overwrite (or write to another --output)", output, err)
	}
	return nil
}
