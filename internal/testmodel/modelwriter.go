package testmodel

import (
	"bufio"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"

	"qa-shard/internal/onnxpb"
)

// tensorHeader encodes every TensorProto field except raw_data's payload,
// which follows as a stream.
func tensorHeader(t *tensor) []byte {
	return onnxpb.AppendTensorHeader(nil, t.name, t.dtype, t.dims, t.byteLen())
}

// countingWriter lets writeModel prove that every fill function produced
// exactly the bytes its length prefix announced; a mismatch would otherwise
// yield a file that only fails deep inside a protobuf parser.
type countingWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// put writes p; the bufio.Writer keeps its first error, which writeModel
// checks once at Flush.
func (c *countingWriter) put(p []byte) {
	n, _ := c.w.Write(p)
	c.n += int64(n)
}

// writeModel streams a ModelProto. Protobuf puts a message's length before
// its body, so all sizes are computed first from the headers and the declared
// tensor lengths, and the weights are generated afterwards in one pass.
func writeModel(w io.Writer, g *graph, opset int64, producer, version string) (int64, error) {
	var head []byte // graph fields that precede the initializers
	for _, n := range g.nodes {
		head = onnxpb.AppendMessage(head, onnxpb.GraphNode, encodeNode(n))
	}
	head = onnxpb.AppendString(head, onnxpb.GraphName, g.name)
	var tail []byte // graph fields that follow the initializers
	for _, v := range g.inputs {
		tail = onnxpb.AppendMessage(tail, onnxpb.GraphInput, encodeValueInfo(v))
	}
	for _, v := range g.outputs {
		tail = onnxpb.AppendMessage(tail, onnxpb.GraphOutput, encodeValueInfo(v))
	}
	headers := make([][]byte, len(g.inits))
	graphLen := len(head) + len(tail)
	for i, t := range g.inits {
		headers[i] = tensorHeader(t)
		graphLen += protowire.SizeTag(onnxpb.GraphInitializer) + protowire.SizeBytes(len(headers[i])+t.byteLen())
	}

	m := onnxpb.AppendVarint(nil, onnxpb.ModelIRVersion, 8)
	m = onnxpb.AppendString(m, onnxpb.ModelProducerName, producer)
	m = onnxpb.AppendString(m, onnxpb.ModelProducerVersion, version)
	op := onnxpb.AppendString(nil, onnxpb.OpsetDomain, "")
	op = onnxpb.AppendVarint(op, onnxpb.OpsetVersion, uint64(opset))
	m = onnxpb.AppendMessage(m, onnxpb.ModelOpsetImport, op)
	m = protowire.AppendTag(m, onnxpb.ModelGraph, protowire.BytesType)
	m = protowire.AppendVarint(m, uint64(graphLen))
	want := int64(len(m) + graphLen)

	cw := &countingWriter{w: bufio.NewWriterSize(w, 1<<20)}
	cw.put(m)
	cw.put(head)
	for i, t := range g.inits {
		b := protowire.AppendTag(nil, onnxpb.GraphInitializer, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(len(headers[i])+t.byteLen()))
		cw.put(b)
		cw.put(headers[i])
		start := cw.n
		if err := writePayload(cw, t); err != nil {
			return cw.n, fmt.Errorf("initializer %s: %w", t.name, err)
		}
		if got := cw.n - start; got != int64(t.byteLen()) {
			return cw.n, fmt.Errorf("initializer %s: wrote %d bytes, shape needs %d", t.name, got, t.byteLen())
		}
	}
	cw.put(tail)
	if err := cw.w.Flush(); err != nil {
		return cw.n, fmt.Errorf("write model: %w", err)
	}
	if cw.n != want {
		return cw.n, fmt.Errorf("write model: wrote %d bytes, expected %d", cw.n, want)
	}
	return cw.n, nil
}

func writePayload(w io.Writer, t *tensor) error {
	if t.fill != nil {
		return t.fill(w)
	}
	_, err := w.Write(t.raw)
	return err
}
