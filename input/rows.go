package input

import (
	"qa-shard/internal/record"
)

// rowsPart reads one Parquet part.
type rowsPart struct {
	h     handle
	r     *rowReader
	state hashState // the hash after the last group loaded
	s     *Reader
}

// openRows opens a Parquet part at its first row group.
func (s *Reader) openRows(f *File, part Part) (*rowsPart, error) {
	h, err := open(f)
	if err != nil {
		return nil, err
	}
	pf, err := openParquet(f, h)
	if err != nil {
		h.Close()
		return nil, err
	}
	groups := part.groups
	if groups == nil {
		groups = groupsOf(pf)
	}
	r, err := newRowReader(f, pf, groups, s.mapper, s.hash)
	if err != nil {
		h.Close()
		return nil, err
	}
	return &rowsPart{h: h, r: r, s: s, state: snapshotOf(s.hash)}, nil
}

func (p *rowsPart) next(doc *record.Document) error {
	loaded := p.r.g
	if err := p.r.next(doc); err != nil {
		return err
	}
	if p.r.g != loaded {
		p.state = snapshotOf(p.s.hash)
	}
	return nil
}

func (p *rowsPart) end() int64          { return p.r.row }
func (p *rowsPart) snapshot() hashState { return p.state }
func (p *rowsPart) close()              { p.h.Close() }
