package tokenizer

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"qa-shard/tokenizer/internal/models"
)

// TestModelByShape: a model without "type" is read as the variant its
// fields make it in tokenizers' untagged ModelWrapper, and encodes as the
// same model with its "type" does; shapes of no supported variant are
// refused with a sentence saying why.
func TestModelByShape(t *testing.T) {
	untype := func(m string, typ string) string {
		return strings.Replace(m, `"type":"`+typ+`",`, "", 1)
	}
	bpeModel := bpeModels["ties"]
	uniModel := `{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["a",-1],["b",-2],["ab",-1.5]]}`
	for _, c := range []struct{ name, typed, typ, text string }{
		{"BPE", bpeModel, "BPE", "abcaaab"},
		{"BPE legacy merges", bpeModels["legacy"], "BPE", "abcaaab"},
		{"Unigram", uniModel, "Unigram", "abba"},
	} {
		t.Run(c.name, func(t *testing.T) {
			untyped := untype(c.typed, c.typ)
			if untyped == c.typed {
				t.Fatalf("the model %s has no \"type\" to remove", c.typed)
			}
			want := tinyTokenizer(t, c.typed, "null")
			got := tinyTokenizer(t, untyped, "null")
			if same := slices.Equal(got.Encode(c.text).IDs, want.Encode(c.text).IDs); !same || len(want.Encode(c.text).IDs) == 0 {
				t.Fatalf("untyped %v, typed %v", got.Encode(c.text).IDs, want.Encode(c.text).IDs)
			}
		})
	}

	t.Run("WordPiece", func(t *testing.T) {
		tk, err := Load(editedTokenizer(t, func(d map[string]any) { delete(d["model"].(map[string]any), "type") }))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tk.model.(*models.WordPiece); !ok {
			t.Fatalf("BERT's model without type read as %T", tk.model)
		}
		text := "Unaffable tokenizers, naïvely!"
		if got, want := tk.Encode(text).IDs, bertTokenizer(t).Encode(text).IDs; !slices.Equal(got, want) {
			t.Fatalf("ids %v, want %v", got, want)
		}
	})

	for _, c := range []struct{ name, model, want string }{
		{"WordLevel", `{"vocab":{"a":0,"<unk>":1},"unk_token":"<unk>"}`, `"WordLevel" is not supported`},
		{"WordPiece lacking a field", `{"vocab":{"a":0,"<unk>":1},"unk_token":"<unk>","continuing_subword_prefix":"##"}`, `"WordLevel" is not supported`},
		{"no vocab", `{"merges":[],"unk_id":0}`, "whose fields are none of"},
		{"vocab of the wrong kind", `{"vocab":"a b"}`, "whose fields are none of"},
		{"BPE whose merges name unknown tokens", `{"vocab":{"a":0},"merges":["a z"]}`, "model without \"type\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse([]byte(tinyJSON(c.model, "null")))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
			if c.name == "WordLevel" && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("err = %v, want ErrUnsupported", err)
			}
		})
	}
}
