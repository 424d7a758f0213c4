package qagraph

import (
	"bufio"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"

	"qa-shard/internal/onnxpb"
)

// Protobuf messages may not reach 2 GiB, which a large model's weights
// do (XLM-R large in float32 is about 2.2 GB). Past externalAbove bytes
// of initializers, every initializer of at least externalMin bytes is
// written to a data file beside the model (ONNX external data: location,
// offset and length in the tensor), each at an offset aligned to a page
// so ONNX Runtime can map it.
const (
	externalMin = 1 << 10
	pageAlign   = 4096
)

// externalAbove is a variable so a test can write a small model the way
// a large one is written.
var externalAbove int64 = 1 << 30

// TensorExternalData and the external data location are TensorProto
// fields 13 and 14.
const (
	tensorExternalData protowire.Number = 13
	locationExternal   uint64           = 1
)

// countingWriter lets writeModel prove that every fill function produced
// exactly the bytes its length announced; a mismatch would otherwise give
// a file that only fails deep inside a protobuf parser.
type countingWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countingWriter) put(p []byte) {
	n, _ := c.w.Write(p)
	c.n += int64(n)
}

// needsExternal says whether g's initializers are too large for one
// protobuf message.
func needsExternal(g *graph) bool {
	var n int64
	for _, t := range g.inits {
		n += t.byteLen()
	}
	return n > externalAbove
}

// writeModel streams a ModelProto to w. Protobuf puts a message's length
// before its body, so every size is computed first from the headers and
// the declared tensor lengths, and the weights are produced afterwards in
// one pass. With data set, the large initializers go there instead
// (external data named dataName, beside the model).
func writeModel(w io.Writer, data io.Writer, dataName string, g *graph, opsets []opset, producer, version string) (int64, error) {
	var head []byte // graph fields before the initializers
	for _, n := range g.nodes {
		head = onnxpb.AppendMessage(head, onnxpb.GraphNode, encodeNode(n))
	}
	head = onnxpb.AppendString(head, onnxpb.GraphName, g.name)
	var tail []byte // graph fields after the initializers
	for _, v := range g.inputs {
		tail = onnxpb.AppendMessage(tail, onnxpb.GraphInput, encodeValueInfo(v))
	}
	for _, v := range g.outputs {
		tail = onnxpb.AppendMessage(tail, onnxpb.GraphOutput, encodeValueInfo(v))
	}
	headers := make([][]byte, len(g.inits))
	inline := make([]bool, len(g.inits))
	graphLen := len(head) + len(tail)
	var offset int64 // in the data file
	offsets := make([]int64, len(g.inits))
	for i, t := range g.inits {
		inline[i] = data == nil || t.byteLen() < externalMin
		if inline[i] {
			headers[i] = onnxpb.AppendTensorHeader(nil, t.name, t.dtype, t.dims, int(t.byteLen()))
			graphLen += protowire.SizeTag(onnxpb.GraphInitializer) + protowire.SizeBytes(len(headers[i])+int(t.byteLen()))
			continue
		}
		offset = (offset + pageAlign - 1) / pageAlign * pageAlign
		offsets[i] = offset
		headers[i] = externalHeader(t, dataName, offset)
		offset += t.byteLen()
		graphLen += protowire.SizeTag(onnxpb.GraphInitializer) + protowire.SizeBytes(len(headers[i]))
	}

	m := onnxpb.AppendVarint(nil, onnxpb.ModelIRVersion, 8)
	m = onnxpb.AppendString(m, onnxpb.ModelProducerName, producer)
	m = onnxpb.AppendString(m, onnxpb.ModelProducerVersion, version)
	for _, o := range opsets {
		op := onnxpb.AppendString(nil, onnxpb.OpsetDomain, o.domain)
		op = onnxpb.AppendVarint(op, onnxpb.OpsetVersion, uint64(o.version))
		m = onnxpb.AppendMessage(m, onnxpb.ModelOpsetImport, op)
	}
	m = protowire.AppendTag(m, onnxpb.ModelGraph, protowire.BytesType)
	m = protowire.AppendVarint(m, uint64(graphLen))
	want := int64(len(m) + graphLen)

	cw := &countingWriter{w: bufio.NewWriterSize(w, 1<<20)}
	var dw *countingWriter
	if data != nil {
		dw = &countingWriter{w: bufio.NewWriterSize(data, 1<<20)}
	}
	cw.put(m)
	cw.put(head)
	for i, t := range g.inits {
		if !inline[i] {
			cw.put(protowire.AppendBytes(protowire.AppendTag(nil, onnxpb.GraphInitializer, protowire.BytesType), headers[i]))
			dw.put(make([]byte, offsets[i]-dw.n)) // page alignment
			if err := writePayload(dw, t); err != nil {
				return cw.n, fmt.Errorf("initializer %s: %w", t.name, err)
			}
			if got := dw.n - offsets[i]; got != t.byteLen() {
				return cw.n, fmt.Errorf("initializer %s: wrote %d bytes, its shape needs %d", t.name, got, t.byteLen())
			}
			continue
		}
		b := protowire.AppendTag(nil, onnxpb.GraphInitializer, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(len(headers[i]))+uint64(t.byteLen()))
		cw.put(b)
		cw.put(headers[i])
		start := cw.n
		if err := writePayload(cw, t); err != nil {
			return cw.n, fmt.Errorf("initializer %s: %w", t.name, err)
		}
		if got := cw.n - start; got != t.byteLen() {
			return cw.n, fmt.Errorf("initializer %s: wrote %d bytes, its shape needs %d", t.name, got, t.byteLen())
		}
	}
	cw.put(tail)
	if err := cw.w.Flush(); err != nil {
		return cw.n, fmt.Errorf("writing the model: %w", err)
	}
	if dw != nil {
		if err := dw.w.Flush(); err != nil {
			return cw.n, fmt.Errorf("writing the model's data: %w", err)
		}
	}
	if cw.n != want {
		return cw.n, fmt.Errorf("writing the model: wrote %d bytes, expected %d", cw.n, want)
	}
	return cw.n, nil
}

// externalHeader is a TensorProto whose values are in the data file.
func externalHeader(t *tensor, location string, offset int64) []byte {
	var b []byte
	for _, d := range t.dims {
		b = onnxpb.AppendVarint(b, onnxpb.TensorDims, uint64(d))
	}
	b = onnxpb.AppendVarint(b, onnxpb.TensorDataType, uint64(t.dtype))
	b = onnxpb.AppendString(b, onnxpb.TensorName, t.name)
	for _, kv := range [][2]string{{"location", location}, {"offset", fmt.Sprint(offset)}, {"length", fmt.Sprint(t.byteLen())}} {
		b = onnxpb.AppendMessage(b, tensorExternalData, onnxpb.EncodeEntry(kv[0], kv[1]))
	}
	return onnxpb.AppendVarint(b, onnxpb.TensorDataLocation, locationExternal)
}

func writePayload(w io.Writer, t *tensor) error {
	if t.fill != nil {
		return t.fill(w)
	}
	_, err := w.Write(t.raw)
	return err
}

// opset is one imported operator set.
type opset struct {
	domain  string
	version int64
}
