package input

import (
	"fmt"

	"qa-shard/internal/format"
	"qa-shard/internal/readstate"
	"qa-shard/shard"
)

// Part is one piece of one file that a process reads.
type Part struct {
	File int // index in Plan.Files
	// From and To bound what the part holds. A plain JSONL file: the
	// lines that start in bytes [From, To). A compressed file: the whole
	// file (0, Size). A Parquet file: rows [From, To), whole row groups. A
	// SQuAD dataset: its paragraphs [0, n), the whole file.
	From, To int64
	// Bytes is the share of the file's size the part stands for (its
	// work, for progress).
	Bytes  int64
	groups []rowGroup // Parquet: the part's row groups
}

// Plan is what one process (a rank, or the only process) reads: its block
// of the global byte space (every file's bytes, end to end, in order) and
// the parts of files that block owns.
type Plan struct {
	Files []File
	Rank  shard.Rank
	// Block is the rank's share of the global bytes; Block.Total is the
	// size of all files together.
	Block readstate.Block
	Parts []Part
}

// Split gives rank r the r-th of World equal ranges of the global byte
// space, and with it: every line of a plain JSONL file that starts in the
// range (a file may be shared by several ranks, line by line); every
// compressed file, SQuAD dataset and Parquet row group whose middle byte
// falls in the range (they are read whole: compressed data cannot be
// entered at an arbitrary byte, a dataset is one JSON document, and a row
// group is Parquet's unit of reading). Ownership
// is monotonic in position, so the ranks' documents concatenated in rank
// order are the input's order, and every rank computes the same split from
// the file sizes alone. Only files that overlap the range are opened (to
// check their magic bytes, or read a Parquet footer).
func Split(files []File, r shard.Rank) (*Plan, error) {
	if r.World < 1 {
		r.World = 1
	}
	var total int64
	for _, f := range files {
		total += max(f.Size, 0)
	}
	p := &Plan{Files: files, Rank: r, Block: readstate.For(total, r.Rank, r.World)}
	if len(files) == 1 && files[0].Path == "-" {
		if r.World > 1 {
			return nil, fmt.Errorf("%w: ranks need --input files: standard input cannot be split", shard.ErrRank)
		}
		p.Parts = []Part{{File: 0}}
		return p, nil
	}
	var start int64
	for i := range p.Files {
		f := &p.Files[i]
		lo, hi := start, start+f.Size
		start = hi
		if r.World == 1 {
			// A single process reads every file whole, even one whose size
			// says 0 (a file of /proc): nothing is split, so no size matters.
			if err := p.whole(i); err != nil {
				return nil, err
			}
			continue
		}
		if f.Size == 0 || hi <= p.Block.From || lo >= p.Block.To {
			continue // no byte of this file is ours, so no line or unit either
		}
		if err := sniff(f); err != nil {
			return nil, err
		}
		switch f.Format {
		case format.JSONL:
			from, to := max(p.Block.From, lo)-lo, min(p.Block.To, hi)-lo
			p.Parts = append(p.Parts, Part{File: i, From: from, To: to, Bytes: to - from})
		case format.Gzip, format.Zstd:
			if p.Block.Owner(lo+f.Size/2) == r.Rank {
				p.Parts = append(p.Parts, Part{File: i, From: 0, To: f.Size, Bytes: f.Size})
			}
		case format.SQuAD:
			if p.Block.Owner(lo+f.Size/2) == r.Rank {
				if err := p.whole(i); err != nil {
					return nil, err
				}
			}
		case format.Parquet:
			part, err := p.parquetPart(i, lo)
			if err != nil {
				return nil, err
			}
			if part != nil {
				p.Parts = append(p.Parts, *part)
			}
		}
	}
	return p, nil
}

// whole adds file i entirely.
func (p *Plan) whole(i int) error {
	f := &p.Files[i]
	if err := sniff(f); err != nil {
		return err
	}
	part := Part{File: i, To: f.Size, Bytes: f.Size}
	if f.Format == format.SQuAD {
		rows, err := squadRows(f)
		if err != nil {
			return err
		}
		part.To = rows
	}
	if f.Format == format.Parquet {
		groups, err := layout(f)
		if err != nil {
			return err
		}
		part.groups = groups
		if len(groups) > 0 {
			part.From, part.To = groups[0].row, groups[len(groups)-1].row+groups[len(groups)-1].rows
		} else {
			part.To = 0
		}
	}
	p.Parts = append(p.Parts, part)
	return nil
}

// parquetPart is the run of row groups of file i (starting at global byte
// lo) that this rank owns, or nil.
func (p *Plan) parquetPart(i int, lo int64) (*Part, error) {
	f := &p.Files[i]
	groups, err := layout(f)
	if err != nil {
		return nil, err
	}
	part := Part{File: i, From: -1}
	for _, g := range groups {
		if p.Block.Owner(lo+(g.lo+g.hi)/2) != p.Rank.Rank {
			continue
		}
		if part.From < 0 {
			part.From = g.row
		}
		part.To = g.row + g.rows
		part.Bytes += g.hi - g.lo
		part.groups = append(part.groups, g)
	}
	if part.From < 0 {
		return nil, nil
	}
	return &part, nil
}

// Bytes is the work of this process: the bytes its parts stand for.
func (p *Plan) Bytes() int64 {
	var n int64
	for _, part := range p.Parts {
		n += part.Bytes
	}
	return n
}

// Rows is the number of documents when every part is Parquet (known from
// the footers) or a SQuAD dataset (counted when planned), else 0: a JSONL
// file's lines are not counted in advance.
func (p *Plan) Rows() int64 {
	var n int64
	for _, part := range p.Parts {
		if f := p.Files[part.File].Format; f != format.Parquet && f != format.SQuAD {
			return 0
		}
		n += part.To - part.From
	}
	return n
}
