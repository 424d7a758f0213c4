package main

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"qa-shard/internal/testing/testenv"
)

func tokenizeOut(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return capture(t, func() int { return dispatch(append([]string{"tokenize"}, args...)) })
}

// TestTokenizeCommand: tokenize describes the folder's tokenizer and lists
// each text's tokens with offsets that cut the token's text out of the
// argument; --question shows the first window with its type ids, special
// tokens and question marked; --json is one object for the tokenizer and
// one per token; a folder qa-shard refuses exits 2 with the reason.
func TestTokenizeCommand(t *testing.T) {
	text := "Maria Costa founded Ünïcode Ltd. in 1889."
	code, stdout, stderr := tokenizeOut(t, "--model", model(t, "tiny"), text)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, want := range []string{"tokenizer: read ", "tokenizer.json", "model: WordPiece", "pair template: [CLS] question [SEP] context [SEP]",
		`"unicode"`, `[20, 27) "Ünïcode"`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output does not say %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = tokenizeOut(t, "--model", model(t, "tiny"), "--json", "--question", "Who founded it?", text)
	if code != exitOK {
		t.Fatalf("--json --question: exit %d:\n%s", code, stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	var facts struct{ Components []string }
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &facts) != nil || len(facts.Components) != 4 {
		t.Fatalf("first line is not the tokenizer's description: %q", sc.Text())
	}
	runes := []rune(text)
	kinds := map[string]int{}
	for sc.Scan() {
		var r struct {
			Token, Source string
			Type          *int32 `json:"type_id"`
			Start, End    int
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		if r.Type == nil {
			t.Fatalf("no type id with --question: %q", sc.Text())
		}
		switch r.Source {
		case "special", "question":
			kinds[r.Source]++
		default:
			kinds["context"]++
			if got := string(runes[r.Start:r.End]); got != r.Source || *r.Type != 1 {
				t.Errorf("context token %q: [%d, %d) is %q in the text, the row says %q, type %d", r.Token, r.Start, r.End, got, r.Source, *r.Type)
			}
		}
	}
	if kinds["special"] != 3 || kinds["question"] != 4 || kinds["context"] != 9 {
		t.Errorf("window rows by kind %v, want 3 special, 4 question and 9 context tokens", kinds)
	}

	t.Run("japanese", func(t *testing.T) {
		ja, err := testenv.RealTokenizer("bert-base-japanese-v3")
		testenv.Need(t, err)
		if code, _, stderr := tokenizeOut(t, "--model", ja, "テスト"); code != exitUsage || !strings.Contains(stderr, "unidic_lite") || !strings.Contains(stderr, "pip install unidic-lite") {
			t.Errorf("a folder whose MeCab dictionary (unidic_lite) is not installed: exit %d, want %d naming it and how to install it:\n%s", code, exitUsage, stderr)
		}
	})
	if code, _, _ := tokenizeOut(t, "--model", model(t, "tiny")); code != exitUsage {
		t.Errorf("no text: exit %d, want %d", code, exitUsage)
	}
}
