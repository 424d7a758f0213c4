package input

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"qa-shard/internal/pin"
	"qa-shard/internal/record"
)

// SQuAD datasets (v1.1 and v2.0) as input: each paragraph is a document,
// its questions are asked of it and keep their ids, and --keep-fields
// title copies its article's title. A dataset is one JSON document, so the
// file is read and hashed whole when its part opens; a document's position
// is its paragraph's index in the file (a row, as in Parquet), where a
// resumed run continues. Ranks do not split a dataset: the rank owning its
// middle byte reads it all, as a compressed file.

// squadDataset is what is read of a dataset; answers are the gold's
// (package evaluate), not the input's.
type squadDataset struct {
	Data []struct {
		Title      string `json:"title"`
		Paragraphs []struct {
			Context string `json:"context"`
			QAs     []struct {
				ID       json.RawMessage `json:"id"`
				Question string          `json:"question"`
			} `json:"qas"`
		} `json:"paragraphs"`
	} `json:"data"`
}

// squadParagraph is one document of a dataset.
type squadParagraph struct {
	title, context string
	asked          []record.Asked
}

// readSQuAD reads a whole dataset from r into its paragraphs, in order.
func readSQuAD(f *File, r io.Reader) ([]squadParagraph, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %w", ErrInput, f.Path, err)
	}
	if f.Size > 0 && int64(len(b)) < f.Size {
		return nil, fmt.Errorf("%w: input file %s %w", ErrChanged, f.Name, pin.Changedf("was truncated while the run read it (%d bytes, %d when the run started)", len(b), f.Size))
	}
	var ds squadDataset
	if err := json.Unmarshal(b, &ds); err != nil {
		return nil, fmt.Errorf("%w: %s starts as a SQuAD dataset but is not one: %w", ErrInput, f.Name, err)
	}
	var out []squadParagraph
	for _, art := range ds.Data {
		for _, p := range art.Paragraphs {
			para := squadParagraph{title: art.Title, context: p.Context, asked: make([]record.Asked, len(p.QAs))}
			for i, qa := range p.QAs {
				para.asked[i] = record.Asked{ID: squadID(qa.ID), Text: qa.Question}
			}
			out = append(out, para)
		}
	}
	return out, nil
}

// squadID is a question's id as text: SQuAD's are strings; a number is
// kept as written; none is "".
func squadID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if t := strings.TrimSpace(string(raw)); t != "null" {
		return t
	}
	return ""
}

// squadRows counts a dataset's paragraphs (its documents), checking that
// it reads, before a run starts.
func squadRows(f *File) (int64, error) {
	h, err := open(f)
	if err != nil {
		return 0, err
	}
	defer h.Close()
	paras, err := readSQuAD(f, h)
	return int64(len(paras)), err
}

// squadPart reads one dataset's paragraphs from row on.
type squadPart struct {
	h      handle
	f      *File
	paras  []squadParagraph
	row    int64 // the next paragraph
	bytes  int64 // the part's work, shared out over the paragraphs
	state  hashState
	mapper *record.Mapper
}

// openSQuAD reads a dataset whole through the Reader's hash.
func (s *Reader) openSQuAD(f *File, part Part) (*squadPart, error) {
	h, err := open(f)
	if err != nil {
		return nil, err
	}
	paras, err := readSQuAD(f, io.TeeReader(h, s.hash))
	if err != nil {
		h.Close()
		return nil, err
	}
	return &squadPart{h: h, f: f, paras: paras, bytes: part.Bytes, state: snapshotOf(s.hash), mapper: s.mapper}, nil
}

func (p *squadPart) next(doc *record.Document) error {
	n := int64(len(p.paras))
	if p.row >= n {
		return io.EOF
	}
	i := p.row
	p.row++
	para := p.paras[i]
	doc.Pos = record.Position{File: p.f.Name, At: i, Row: true}
	doc.Bytes = p.bytes*(i+1)/n - p.bytes*i/n
	p.mapper.MapAsked(para.context, para.asked, func(name string) json.RawMessage {
		if name == "title" {
			return record.AppendJSONString(nil, para.title)
		}
		return nil
	}, doc)
	return nil
}

// seek continues at paragraph row (a resume point), returning the work
// of the paragraphs before it.
func (p *squadPart) seek(row int64) int64 {
	n := int64(len(p.paras))
	p.row = min(max(row, 0), n)
	if n == 0 {
		return 0
	}
	return p.bytes * p.row / n
}

func (p *squadPart) end() int64          { return p.row }
func (p *squadPart) snapshot() hashState { return p.state }
func (p *squadPart) close()              { p.h.Close() }
