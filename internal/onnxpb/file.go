package onnxpb

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"google.golang.org/protobuf/encoding/protowire"
)

// File is a model file mapped read-only into memory: a 1 GB model costs
// page cache, not heap, and pages that are never read (the weights, when
// only the graph is inspected) are never loaded.
type File struct {
	data []byte
}

// Open maps the file at path.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return nil, fmt.Errorf("%s: %w: the file is empty", path, ErrMalformed)
	}
	if st.Size() > 1<<31 {
		return nil, fmt.Errorf("%s: %w: %d bytes is over protobuf's 2 GB limit", path, ErrMalformed, st.Size())
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping %s: %w", path, err)
	}
	return &File{data: data}, nil
}

// Bytes is the file's content; it is valid until Close.
func (f *File) Bytes() []byte { return f.data }

// Close unmaps the file.
func (f *File) Close() error {
	if f.data == nil {
		return nil
	}
	err := syscall.Munmap(f.data)
	f.data = nil
	return err
}

// OpTypes counts the operators of a model file by op_type, subgraphs
// included, reading only the graph's structure.
func OpTypes(path string) (map[string]int, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := Parse(f.Bytes())
	if err != nil {
		return nil, err
	}
	if m.Graph == nil {
		return nil, errors.New("the model has no graph")
	}
	ops := map[string]int{}
	m.Graph.Walk(func(n *Node) { ops[n.OpType]++ })
	return ops, nil
}

// Pieces is a message assembled from byte slices, some of them pointing
// into the input file, so a rewritten model is written without being
// copied whole first.
type Pieces [][]byte

// Len is the encoded length.
func (p Pieces) Len() int {
	n := 0
	for _, b := range p {
		n += len(b)
	}
	return n
}

// Add appends encoded bytes.
func (p *Pieces) Add(b ...[]byte) { *p = append(*p, b...) }

// AddMessage appends a length-delimited field whose payload is msg.
func (p *Pieces) AddMessage(num protowire.Number, msg Pieces) {
	head := protowire.AppendTag(nil, num, protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(msg.Len()))
	*p = append(append(*p, head), msg...)
}

// WriteTo writes the pieces in order.
func (p Pieces) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, b := range p {
		m, err := w.Write(b)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
