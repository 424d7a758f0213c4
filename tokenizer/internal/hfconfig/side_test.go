package hfconfig

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"qa-shard/tokenizer/internal/hfjson"
)

// TestSideConfigs: the side configs are read in transformers' order
// (special_tokens_map.json, then tokenizer_config.json), a token given as a
// string or as an AddedToken object, a missing file skipped, and a left
// padding side refused naming the file.
func TestSideConfigs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if sides, err := SideConfigs(dir); err != nil || len(sides) != 0 {
		t.Fatalf("no side configs: %v, %v", sides, err)
	}
	write("special_tokens_map.json", `{"cls_token": {"content": "<s>", "lstrip": false}, "pad_token": "<pad>"}`)
	write("tokenizer_config.json", `{"cls_token": "[CLS]", "padding_side": "right"}`)
	sides, err := SideConfigs(dir)
	want := []Side{{Name: "special_tokens_map.json", CLS: "<s>", Pad: "<pad>"}, {Name: "tokenizer_config.json", CLS: "[CLS]"}}
	if err != nil || !slices.Equal(sides, want) {
		t.Errorf("got %+v, %v; want %+v", sides, err, want)
	}
	write("tokenizer_config.json", `{"padding_side": "left"}`)
	if _, err := SideConfigs(dir); !errors.Is(err, hfjson.ErrUnsupported) {
		t.Errorf("left padding side: %v, want ErrUnsupported", err)
	}
}

// TestPadding: tokenizer.json's padding gives its pad id, none when it is
// null, and a left direction is refused.
func TestPadding(t *testing.T) {
	if id, err := Padding([]byte(`null`)); id != nil || err != nil {
		t.Errorf("null padding: %v, %v", id, err)
	}
	if id, err := Padding([]byte(`{"direction": "Right", "pad_id": 7}`)); id == nil || *id != 7 || err != nil {
		t.Errorf("pad_id 7: %v, %v", id, err)
	}
	if _, err := Padding([]byte(`{"direction": "Left", "pad_id": 0}`)); !errors.Is(err, hfjson.ErrUnsupported) {
		t.Errorf("left padding: %v, want ErrUnsupported", err)
	}
}
