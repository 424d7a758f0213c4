// Package onnxpb reads ONNX model files at the protobuf wire level and
// helps rewrite them. It decodes only the fields the project inspects or
// changes and keeps every field as the bytes it was read from, so a
// rewritten model loses nothing this package does not understand (doc
// strings, value infos, training info, fields of a newer ONNX). Nothing
// here copies weights: every slice points into the bytes given to Parse.
package onnxpb

import (
	"encoding/binary"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"qa-shard/internal/errkind"
)

// ErrMalformed marks bytes that are not a well-formed ONNX protobuf.
var ErrMalformed = errkind.NewInternal("not a well-formed ONNX protobuf")

// Field is one field of a message as it appears on the wire.
type Field struct {
	Num    protowire.Number
	Type   protowire.Type
	Raw    []byte // the whole field, tag included, as read
	Data   []byte // the payload of a length-delimited field
	Varint uint64 // the value of a varint field
}

// fields splits a message into its fields, in wire order.
func fields(msg []byte) ([]Field, error) {
	var out []Field
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return nil, fmt.Errorf("%w: bad tag: %w", ErrMalformed, protowire.ParseError(n))
		}
		f := Field{Num: num, Type: typ}
		var m int
		switch typ {
		case protowire.VarintType:
			f.Varint, m = protowire.ConsumeVarint(msg[n:])
		case protowire.BytesType:
			f.Data, m = protowire.ConsumeBytes(msg[n:])
		default:
			m = protowire.ConsumeFieldValue(num, typ, msg[n:])
		}
		if m < 0 {
			return nil, fmt.Errorf("%w: field %d: %w", ErrMalformed, num, protowire.ParseError(m))
		}
		f.Raw = msg[:n+m]
		out = append(out, f)
		msg = msg[n+m:]
	}
	return out, nil
}

// int64s decodes a repeated int64 field occurrence, packed or not.
func int64s(f Field) ([]int64, error) {
	switch f.Type {
	case protowire.VarintType:
		return []int64{int64(f.Varint)}, nil
	case protowire.BytesType:
		var out []int64
		for b := f.Data; len(b) > 0; {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, fmt.Errorf("%w: packed field %d: %w", ErrMalformed, f.Num, protowire.ParseError(n))
			}
			out = append(out, int64(v))
			b = b[n:]
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: field %d has wire type %d, expected a varint", ErrMalformed, f.Num, f.Type)
}

// float32s decodes a repeated float field occurrence, packed or not.
func float32s(f Field) ([]float32, error) {
	switch f.Type {
	case protowire.Fixed32Type:
		v, _ := protowire.ConsumeFixed32(f.Raw[protowire.SizeTag(f.Num):])
		return []float32{math.Float32frombits(v)}, nil
	case protowire.BytesType:
		if len(f.Data)%4 != 0 {
			return nil, fmt.Errorf("%w: packed floats of %d bytes", ErrMalformed, len(f.Data))
		}
		out := make([]float32, len(f.Data)/4)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(f.Data[4*i:]))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: field %d has wire type %d, expected floats", ErrMalformed, f.Num, f.Type)
}

func str(f Field) (string, error) {
	if f.Type != protowire.BytesType {
		return "", fmt.Errorf("%w: field %d has wire type %d, expected a string", ErrMalformed, f.Num, f.Type)
	}
	return string(f.Data), nil
}

// AppendString appends a string field.
func AppendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// AppendMessage appends a length-delimited field holding msg.
func AppendMessage(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

// AppendVarint appends a varint field.
func AppendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}
