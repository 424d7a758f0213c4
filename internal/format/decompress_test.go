package format

import (
	"bytes"
	"io"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// TestDecompress: two gzip members and two zstd frames read as one text,
// as qa-shard writes them (a member or frame per checkpoint).
func TestDecompress(t *testing.T) {
	lines := []string{"{\"a\":1}\n", "{\"b\":2}\n"}
	var gz, zs bytes.Buffer
	for _, l := range lines {
		g := gzip.NewWriter(&gz)
		if _, err := g.Write([]byte(l)); err != nil || g.Close() != nil {
			t.Fatal("gzip", err)
		}
		z, err := zstd.NewWriter(&zs)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := z.Write([]byte(l)); err != nil || z.Close() != nil {
			t.Fatal("zstd", err)
		}
	}
	for _, tc := range []struct {
		f    Format
		data []byte
	}{{JSONL, []byte(lines[0] + lines[1])}, {Gzip, gz.Bytes()}, {Zstd, zs.Bytes()}} {
		r, closeFn, err := Decompress(bytes.NewReader(tc.data), tc.f)
		if err != nil {
			t.Fatalf("%s: %v", tc.f, err)
		}
		got, err := io.ReadAll(r)
		closeFn()
		if err != nil || string(got) != lines[0]+lines[1] {
			t.Errorf("%s: %q, %v", tc.f, got, err)
		}
	}
	if _, _, err := Decompress(bytes.NewReader([]byte("not gzip")), Gzip); err == nil {
		t.Error("gzip of plain text: no error")
	}
	if _, _, err := Decompress(bytes.NewReader(nil), Parquet); err == nil {
		t.Error("Parquet decompressed")
	}
}
