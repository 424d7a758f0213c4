package input

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"qa-shard/internal/format"
	"qa-shard/internal/readstate"
	"qa-shard/internal/record"
)

// Reader reads a Plan's parts in order as one stream of documents, and
// knows, for any number of documents written, where the input continues
// and what was read before it (At), so checkpoints can journal it.
type Reader struct {
	plan   *Plan
	opt    record.Options
	mapper *record.Mapper
	part   int        // the part being read (or next to open)
	cur    partReader // nil until the part is opened
	hash   hash.Hash  // the current part's fingerprint
	from   int64      // where the current part's hashed bytes or rows start
	seq    int64

	doneBytes int64 // the share's bytes done before this process (resume)
	partDone  int64 // the current part's bytes given to documents so far
	pending   int64 // bytes of parts without documents, for the next one
	held      *held // the document read ahead
	err       error // sticky: io.EOF or the input's failure

	count docCount // the share's documents (count.go)
	pins  pins     // the files opened: what Check compares (pin.go)
	marks marks    // what At reports (marks.go)
}

// hashState is a marshalled SHA-256 (crypto/sha256's own format).
type hashState [stateSize]byte

const stateSize = 4 + 32 + 64 + 8 // magic, h, the pending block, length

// partReader reads one part.
type partReader interface {
	next(doc *record.Document) error // io.EOF after the part's last document
	end() int64                      // the position after the last document
	snapshot() hashState             // the hash state after the last document
	close()
}

// Open starts reading the plan: at the start of its block, or where
// resume (a journal's input state, nil for a fresh start) says, after
// verifying that the files it read are unchanged (see resume). Documents
// are numbered from firstSeq.
func (p *Plan) Open(opt record.Options, resume *readstate.State, firstSeq int64) (*Reader, error) {
	s := &Reader{plan: p, opt: opt, mapper: record.NewMapper(opt), seq: firstSeq}
	if resume != nil && len(resume.Files) > 0 {
		if err := s.resume(*resume); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Next returns the next document, io.EOF after the block's last. It
// reads one document ahead: a document's Bytes are settled only when the
// next one is read or its part ends, when the part's bytes no document
// stood for (a straddling line's head, trailing blank lines, a compressed
// file's trailer) go to the last one, so that the documents' Bytes add up
// exactly to Bytes(). Standard input, whose size is unknown, is read
// without looking ahead.
func (s *Reader) Next() (record.Document, error) {
	for {
		if s.err != nil {
			return record.Document{}, s.err
		}
		d, m, err := s.read()
		if err != nil {
			s.err = err
			if s.held != nil {
				return s.emit(), nil
			}
			return record.Document{}, err
		}
		d.Bytes += s.pending
		s.pending = 0
		if s.live() {
			// Standard input: nothing to settle (its size is unknown), and
			// a producer waiting for this document's answer before it
			// writes the next must not wait for the next line first.
			s.held = &held{doc: d, mark: m}
			return s.emit(), nil
		}
		if s.held == nil {
			s.held = &held{doc: d, mark: m}
			continue
		}
		out := s.emit()
		s.held = &held{doc: d, mark: m}
		return out, nil
	}
}

// live reports whether the input is standard input, whose documents are
// handed on as soon as each is read.
func (s *Reader) live() bool { return s.plan.stdin() }

// held is the document read ahead, with its input state.
type held struct {
	doc  record.Document
	mark mark
}

// emit hands out the held document, numbering it and keeping its state.
func (s *Reader) emit() record.Document {
	h := s.held
	s.held = nil
	h.doc.Seq, h.mark.seq = s.seq, s.seq
	s.seq++
	s.marks.add(h.mark)
	return h.doc
}

// read returns the next document of the parts and its input state.
func (s *Reader) read() (record.Document, mark, error) {
	for s.part < len(s.plan.Parts) {
		if s.cur == nil {
			if err := s.openPart(); err != nil {
				return record.Document{}, mark{}, err
			}
		}
		var doc record.Document
		err := s.cur.next(&doc)
		if errors.Is(err, io.EOF) {
			s.finishPart()
			continue
		}
		if err != nil {
			return record.Document{}, mark{}, err
		}
		s.partDone += doc.Bytes
		if s.plan.Files[s.plan.Parts[s.part].File].packed() {
			s.count.readPacked(doc.Bytes)
		}
		return doc, mark{part: int32(s.part), to: s.cur.end(), from: s.from, ndone: int32(s.marks.parts()), state: s.cur.snapshot()}, nil
	}
	return record.Document{}, mark{}, io.EOF
}

// At is the input state once the documents before Seq next are written:
// where the next one starts, and what was read up to there. It is called
// from the writer while Next runs on the reader.
func (s *Reader) At(next int64) readstate.State {
	m, done, ok := s.marks.at(next)
	if !ok {
		return s.marks.started() // nothing written since this process started
	}
	part := s.plan.Parts[m.part]
	files := append(done, s.record(part, m.from, m.to, m.state))
	return readstate.State{Next: readstate.Position{File: part.File, Offset: m.to}, Files: files}
}

// record describes what was read of a part's file.
func (s *Reader) record(part Part, from, to int64, state hashState) readstate.File {
	f := s.plan.Files[part.File]
	return readstate.File{File: part.File, Name: f.Name, Size: f.Size, ModTime: f.ModTime.UnixNano(), From: from, To: to, SHA256: sum(state)}
}

// Bytes is the work of this process (see Plan.Bytes).
func (s *Reader) Bytes() int64 { return s.plan.Bytes() }

// DoneBytes is the part of Bytes a resumed process had done before: the
// parts before the one it resumes in and that part up to the resume point
// (compressed bytes for a compressed file, whole row groups' shares for
// Parquet). 0 for a fresh start.
func (s *Reader) DoneBytes() int64 { return s.doneBytes }

// Close releases the open file.
func (s *Reader) Close() {
	if s.cur != nil {
		s.cur.close()
		s.cur = nil
	}
}

func (s *Reader) finishPart() {
	part := s.plan.Parts[s.part]
	if s.plan.Files[part.File].packed() {
		s.count.endPacked()
	}
	if left := part.Bytes - s.partDone; s.held != nil {
		s.held.doc.Bytes = max(0, s.held.doc.Bytes+left)
	} else {
		s.pending += left
	}
	s.partDone = 0
	rec := s.record(part, s.from, s.cur.end(), s.cur.snapshot())
	if e, ok := s.cur.(interface{ ended() os.FileInfo }); ok && e.ended() != nil {
		// A file read on as it grew is recorded as it was at its end,
		// which is what was answered (and what a resume compares).
		st := e.ended()
		rec.Size, rec.ModTime = st.Size(), st.ModTime().UnixNano()
		s.pins.end(part.File, rec.To)
	}
	s.cur.close()
	s.cur = nil
	s.marks.finished(rec)
	s.part++
}

// openPart opens the current part at its start.
func (s *Reader) openPart() error {
	part := s.plan.Parts[s.part]
	f := &s.plan.Files[part.File]
	s.hash = sha256.New()
	if f.Format == format.SQuAD {
		r, err := s.openSQuAD(f, part)
		if err != nil {
			return err
		}
		s.cur, s.from = r, 0
		s.pins.note(part.File, r.h)
		return nil
	}
	if f.Format == format.Parquet {
		r, err := s.openRows(f, part)
		if err != nil {
			return err
		}
		s.cur, s.from = r, part.From
		s.pins.note(part.File, r.h)
		return nil
	}
	r, err := s.openLines(f, part, -1)
	if err != nil {
		return err
	}
	s.cur, s.from = r, r.r.Offset()
	s.pins.note(part.File, r.h)
	return nil
}

// snapshotOf marshals a hash's state.
func snapshotOf(h hash.Hash) hashState {
	var st hashState
	b, err := h.(encoding.BinaryAppender).AppendBinary(st[:0])
	if err != nil || len(b) != stateSize {
		panic(fmt.Sprintf("input: SHA-256 state of %d bytes (%v)", len(b), err))
	}
	return st
}

// sum is the hex SHA-256 of what a marshalled state had hashed.
func sum(state hashState) string {
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state[:]); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
