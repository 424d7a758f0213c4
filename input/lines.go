package input

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"qa-shard/internal/format"
	"qa-shard/internal/record"
)

// lineReader reads the lines of one JSONL part.
type lineReader struct {
	h       handle // nil for standard input
	t       *text
	r       *record.Stream
	s       *Reader
	lastRaw int64
	packed  bool // compressed: a document's work is the compressed bytes
	f       *File
	toEnd   bool // the file is read to its end (not a rank part ending inside it)
	endStat os.FileInfo
}

// openLines opens a JSONL part. at < 0 starts at the part's first line:
// for a part that starts mid-file, after the line that straddles its
// start (which belongs to the rank before). at >= 0 resumes at that
// offset, a line start, after re-hashing what the part read before it
// (from the journal's from) and comparing it with want.
func (s *Reader) openLines(f *File, part Part, at int64, resumeFrom ...int64) (*lineReader, error) {
	lr := &lineReader{s: s, packed: f.Format != format.JSONL}
	var src io.Reader = stdin(f)
	if f.Path != "-" {
		h, err := open(f)
		if err != nil {
			return nil, err
		}
		lr.h, src = h, h
	}
	base, err := lr.position(f, part, src, at, resumeFrom)
	if err != nil {
		lr.close()
		return nil, err
	}
	end := part.To
	if lr.packed || f.Path == "-" || s.plan.Rank.World <= 1 {
		end = 0 // read the whole text
	}
	o := s.opt
	o.File, o.Base, o.End, o.Tee = f.Name, base, end, s.hash
	lr.f, lr.toEnd = f, end == 0
	if lr.toEnd && !lr.packed && lr.h != nil {
		o.More = lr.grew
	}
	if f.Path == "-" && s.opt.Idle != nil {
		o.Idle = pauseHook(f, stdin(f), s.opt.Idle)
	} else {
		o.Idle = nil // a file never waits for a writer
	}
	lr.r = record.NewStream(lr.t, o)
	lr.lastRaw = lr.t.raw.n
	return lr, nil
}

// grew reports whether the file has grown past what was read of it: a
// file still being appended to is read on (record.Options.More). Each
// time the end is reached the file is looked at; the last look is what
// the part's end records (ended).
func (lr *lineReader) grew() bool {
	h, ok := lr.h.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return false
	}
	st, err := h.Stat()
	if err != nil {
		return false
	}
	lr.endStat = st
	return st.Size() > lr.t.base+lr.t.raw.n
}

// ended is the file as it was when its end was read (nil when unknown: a
// compressed file, standard input, a rank's part).
func (lr *lineReader) ended() os.FileInfo { return lr.endStat }

// position opens the text where reading starts and returns its offset.
func (lr *lineReader) position(f *File, part Part, src io.Reader, at int64, resumeFrom []int64) (int64, error) {
	switch {
	case at >= 0 && lr.packed:
		// Compressed text is entered at its start: decompressing (and
		// hashing) the prefix is the cost of finding the place.
		t, err := openText(f, src, 0)
		if err != nil {
			return 0, err
		}
		lr.t = t
		if _, err := io.CopyN(lr.s.hash, t, at); err != nil {
			return 0, shortText(f, at, err)
		}
		return at, nil
	case at >= 0:
		from := resumeFrom[0]
		t, err := openText(f, src, from)
		if err != nil {
			return 0, err
		}
		lr.t = t
		if _, err := io.CopyN(lr.s.hash, t, at-from); err != nil {
			return 0, shortText(f, at, err)
		}
		return at, nil
	case part.From == 0 || lr.packed:
		t, err := openText(f, src, 0)
		lr.t = t
		return 0, err
	}
	// The line holding byte From-1 belongs to the rank before: skip
	// through its newline (unhashed: it is not this part's).
	t, err := openText(f, src, part.From-1)
	if err != nil {
		return 0, err
	}
	lr.t = t
	skipped := int64(0)
	for {
		chunk, err := t.raw.br.ReadSlice('\n')
		skipped += int64(len(chunk))
		if err == nil || errors.Is(err, io.EOF) {
			t.raw.n += int64(len(chunk))
			return part.From - 1 + skipped, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return 0, fmt.Errorf("%w: reading %s: %w", ErrInput, f.Path, err)
		}
		t.raw.n += int64(len(chunk))
	}
}

// shortText explains a file that could not be read up to the resume point.
func shortText(f *File, at int64, err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %s: its text ends before offset %d, where the journal says to resume", ErrChanged, f.Name, at)
	}
	return fmt.Errorf("%w: %s: reading up to offset %d, where the journal says to resume: %w", ErrChanged, f.Name, at, err)
}

func (lr *lineReader) next(doc *record.Document) error {
	d, err := lr.r.Next()
	if errors.Is(err, io.EOF) {
		return lr.endsShort(err)
	}
	if err != nil {
		return err
	}
	if lr.packed {
		d.Bytes, lr.lastRaw = lr.t.raw.n-lr.lastRaw, lr.t.raw.n
	}
	*doc = d
	return nil
}

func (lr *lineReader) end() int64          { return lr.r.Offset() }
func (lr *lineReader) snapshot() hashState { return snapshotOf(lr.s.hash) }

func (lr *lineReader) close() {
	if lr.t != nil {
		lr.t.close()
	}
	if lr.h != nil {
		lr.h.Close()
	}
}

var (
	stdinReader *bufio.Reader
	streams     = map[*os.File]*bufio.Reader{}
)

// stdin is the stream f reads (f.Path "-"): standard input, or the pipe
// --input named; buffered once, so that the schema's peek at the first
// record and the reading share it.
func stdin(f *File) *bufio.Reader {
	if f != nil && f.stream != nil {
		if streams[f.stream] == nil {
			streams[f.stream] = bufio.NewReaderSize(f.stream, 1<<20)
		}
		return streams[f.stream]
	}
	if stdinReader == nil {
		stdinReader = bufio.NewReaderSize(os.Stdin, 1<<20)
	}
	return stdinReader
}
