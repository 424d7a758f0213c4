package input

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"sync/atomic"

	"qa-shard/internal/format"
)

// The documents of this process's share, for "documents done of total":
// counted at the start without delaying the first batch (CountDocs runs
// on a goroutine of its own and publishes the total when it is done), from
// what is cheap to know exactly: a plain JSONL part's non-blank lines (a
// newline scan, no parsing), a Parquet part's rows (its footer) and a SQuAD
// dataset's paragraphs (counted when planned).
// Compressed text is not decompressed twice: its documents are estimated
// from the documents read so far per compressed byte, and exact once every
// compressed part has been read to its end by this process.

// docCount is the Reader's counting state.
type docCount struct {
	counted   atomic.Bool  // the plain and Parquet parts are counted
	exact     atomic.Int64 // their documents
	failed    atomic.Bool  // counting failed (the reader reports why)
	packedDoc atomic.Int64 // documents read from compressed parts
	packedIn  atomic.Int64 // compressed bytes those documents stand for
	packedEnd atomic.Int64 // compressed parts read to their end
}

// CountDocs counts the documents of the plain JSONL and Parquet parts; run
// it on its own goroutine (it reads the plain files once, at the speed of
// a newline scan). Standard input is not counted: it cannot be read twice.
func (s *Reader) CountDocs(ctx context.Context) { s.count.parts(ctx, s.plan) }

// Docs is the share's document total as far as it is known: n, and
// whether it is an estimate (compressed parts not read to their end); 0
// while unknown.
func (s *Reader) Docs() (n int64, estimate bool) { return s.count.total(s.plan, s.doneBytes) }

// parts counts the documents of the plan's plain JSONL and Parquet parts.
func (c *docCount) parts(ctx context.Context, p *Plan) {
	var n int64
	for _, part := range p.Parts {
		f := p.Files[part.File]
		switch {
		case f.Path == "-":
			c.failed.Store(true)
			return
		case f.Format == format.Parquet || f.Format == format.SQuAD:
			n += part.To - part.From
		case f.Format == format.JSONL:
			to := part.To
			if p.Rank.World <= 1 {
				to = -1 // a single process reads the file to its end
			}
			k, err := countLines(ctx, f.Path, part.From, to)
			if err != nil {
				c.failed.Store(true)
				return
			}
			n += k
		}
	}
	c.exact.Store(n)
	c.counted.Store(true)
}

// total is the plan's documents as far as they are known (see Docs);
// doneBytes are the bytes a resumed process had done before.
func (c *docCount) total(p *Plan, doneBytes int64) (n int64, estimate bool) {
	if !c.counted.Load() || c.failed.Load() {
		return 0, false
	}
	n = c.exact.Load()
	var packed, parts int64
	for _, part := range p.Parts {
		if p.Files[part.File].packed() {
			packed += part.Bytes
			parts++
		}
	}
	if parts == 0 {
		return n, false
	}
	docs, in := c.packedDoc.Load(), c.packedIn.Load()
	if c.packedEnd.Load() == parts && doneBytes == 0 {
		return n + docs, false
	}
	if docs == 0 || in == 0 {
		return 0, false
	}
	return n + int64(float64(docs)*float64(packed)/float64(in)+0.5), true
}

// readPacked counts a document read from a compressed part.
func (c *docCount) readPacked(bytes int64) {
	c.packedDoc.Add(1)
	c.packedIn.Add(bytes)
}

// endPacked counts a compressed part read to its end.
func (c *docCount) endPacked() { c.packedEnd.Add(1) }

// countLines counts the non-blank lines of the file at path that start in
// [from, to) (to < 0: to the end), as record.Stream reads them: a line
// starts at 0 or after '\n'; a line of spaces, tabs and line ends (and a
// leading UTF-8 BOM) is blank.
func countLines(ctx context.Context, path string, from, to int64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	pos := from
	if from > 0 {
		pos = from - 1 // the byte before: is a line starting at from?
	}
	if _, err := f.Seek(pos, io.SeekStart); err != nil {
		return 0, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	if from > 0 {
		b, err := br.ReadByte()
		if err != nil {
			return 0, nil // the file is shorter than the part: nothing starts in it
		}
		pos++
		if b != '\n' {
			n, err := skipLine(br)
			pos += n
			if err != nil {
				return 0, ignoreEOF(err)
			}
		}
	}
	var count int64
	for to < 0 || pos < to {
		if count%4096 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		n, text, err := readLine(br, pos == 0)
		pos += n
		if text {
			count++
		}
		if err != nil {
			return count, ignoreEOF(err)
		}
	}
	return count, nil
}

// readLine reads through the next '\n' (or the end), saying how many
// bytes it took and whether the line had text.
func readLine(br *bufio.Reader, first bool) (int64, bool, error) {
	var n int64
	text := false
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if first && n == int64(len(chunk)) {
			chunk = bytes.TrimPrefix(chunk, []byte("\xef\xbb\xbf"))
		}
		text = text || len(bytes.TrimLeft(chunk, " \t\r\n\v\f")) > 0
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n, text, err
		}
	}
}

// skipLine reads through the next '\n'.
func skipLine(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n, err
		}
	}
}

func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
