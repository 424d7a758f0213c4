// Command trainqa cuts a corpus written by gencorpus (with its gold
// answers) into model windows exactly as qa-shard cuts them, and labels
// each window with its answer's start and end token, or [CLS] (0, 0) when
// the answer is not wholly inside, as SQuAD 2.0 training does. train.py,
// beside it, trains the demo model on the result:
//
//	go run ./tools/trainqa -corpus train.jsonl -gold train-gold.jsonl \
//	    -tokenizer build/models/tiny/tokenizer.json -out windows.bin
//
// The output is little-endian int32 records: length n, question length,
// start, end, then the n input ids ([CLS] question [SEP] context [SEP]);
// token type ids follow from the question length.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"qa-shard/qa"
	"qa-shard/worker/tokenizer"
)

type gold struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Token    int    `json:"token"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "trainqa:", err)
		os.Exit(1)
	}
}

func run() error {
	corpus := flag.String("corpus", "", "JSONL corpus from gencorpus")
	goldPath := flag.String("gold", "", "its gold answers (gencorpus -gold)")
	tokPath := flag.String("tokenizer", "", "tokenizer.json")
	out := flag.String("out", "", "output file of labelled windows")
	s := qa.DefaultSettings()
	flag.IntVar(&s.MaxSeqLen, "max-seq-len", s.MaxSeqLen, "tokens per window, as qa-shard --max-seq-len")
	flag.IntVar(&s.DocStride, "doc-stride", s.DocStride, "overlap of windows, as qa-shard --doc-stride")
	flag.Parse()
	if *corpus == "" || *goldPath == "" || *tokPath == "" || *out == "" || flag.NArg() > 0 {
		flag.Usage()
		return errors.New("need -corpus, -gold, -tokenizer and -out")
	}
	tok, err := tokenizer.Load(*tokPath)
	if err != nil {
		return err
	}
	docs, err := readContexts(*corpus)
	if err != nil {
		return err
	}
	golds, err := readGold(*goldPath)
	if err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	cls, sep, _ := tok.SpecialIDs()
	sp := qa.Special{CLS: cls, SEP: sep}
	var ctx qa.Tokens
	ctxID := ""
	var windows, positive int
	for _, g := range golds {
		text, ok := docs[g.ID]
		if !ok {
			return fmt.Errorf("gold answer for %s, which is not in %s", g.ID, *corpus)
		}
		if g.ID != ctxID {
			ctx, ctxID = tok.Encode(text), g.ID
		}
		last := lastToken(ctx, g)
		if last < 0 {
			return fmt.Errorf("%s: no token ends the answer at code point %d", g.ID, g.End)
		}
		ws, err := qa.Windows(tok.Encode(g.Question), ctx, sp, s)
		if err != nil {
			return fmt.Errorf("%s: %w", g.ID, err)
		}
		for _, win := range ws {
			start, end := 0, 0
			if g.Token >= win.From && last < win.To {
				off := win.QuestionLen + 2 - win.From
				start, end = g.Token+off, last+off
				positive++
			}
			writeWindow(w, win, start, end)
			windows++
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Printf("%d windows (%d with the answer) from %d questions\n", windows, positive, len(golds))
	return f.Close()
}

// lastToken is the context token that ends the answer: the last one
// starting before the answer's end.
func lastToken(ctx qa.Tokens, g gold) int {
	last := -1
	for i := g.Token; i < ctx.Len() && int(ctx.Offsets[i].Start) < g.End; i++ {
		last = i
	}
	return last
}

func writeWindow(w *bufio.Writer, win qa.Window, start, end int) {
	head := []int32{int32(len(win.IDs)), int32(win.QuestionLen), int32(start), int32(end)}
	binary.Write(w, binary.LittleEndian, head)
	binary.Write(w, binary.LittleEndian, win.IDs)
}

func readContexts(path string) (map[string]string, error) {
	docs := map[string]string{}
	err := eachLine(path, func(line []byte) error {
		var d struct{ ID, Context string }
		if err := json.Unmarshal(line, &d); err != nil {
			return err
		}
		docs[d.ID] = d.Context
		return nil
	})
	return docs, err
}

func readGold(path string) ([]gold, error) {
	var out []gold
	err := eachLine(path, func(line []byte) error {
		var g gold
		if err := json.Unmarshal(line, &g); err != nil {
			return err
		}
		out = append(out, g)
		return nil
	})
	return out, err
}

func eachLine(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s line %d: %w", path, n, err)
		}
	}
	return sc.Err()
}
