package tokenizer

import (
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/testing/testenv"
)

// TestComponents: the parts are named as the file names them, a
// Sequence with its members, a model written without "type" by the kind
// its shape decided; Token reads ids back, added tokens included.
func TestComponents(t *testing.T) {
	for _, c := range []struct {
		folder string
		want   []string
		id     int32
		token  string
	}{
		{"roberta-base", []string{"normalizer: none", "pre_tokenizer: ByteLevel", "model: BPE (50265 tokens)", "post_processor: RobertaProcessing"}, 0, "<s>"},
		{"t5-small", []string{"normalizer: Precompiled", "pre_tokenizer: Sequence[WhitespaceSplit, Metaspace]", "model: Unigram (32100 tokens)", "post_processor: TemplateProcessing"}, 1, "</s>"},
	} {
		dir, err := testenv.RealTokenizer(c.folder)
		testenv.Need(t, err)
		tk, err := Load(filepath.Join(dir, "tokenizer.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(tk.Components(), "; "); got != strings.Join(c.want, "; ") {
			t.Errorf("%s: components\n  %s\nwant\n  %s", c.folder, got, strings.Join(c.want, "; "))
		}
		if got := tk.Token(c.id); got != c.token {
			t.Errorf("%s: Token(%d) = %q, want %q", c.folder, c.id, got, c.token)
		}
		if got := tk.Token(1 << 30); got != "" {
			t.Errorf("%s: an id outside the vocabulary reads %q", c.folder, got)
		}
	}
}
