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
	"qa-shard/tokenizer"
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
	tpl := tok.Template()
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
		ls, err := label(tok.Encode(g.Question), ctx, g, tpl, s)
		if err != nil {
			return err
		}
		for _, l := range ls {
			writeWindow(w, l)
			windows++
			if l.start > 0 {
				positive++
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Printf("%d windows (%d with the answer) from %d questions\n", windows, positive, len(golds))
	return f.Close()
}

// labelled is a window with the positions of its answer's first and last
// token, or 0, 0 ([CLS]) when the answer is not wholly inside.
type labelled struct {
	win        qa.Window
	start, end int
}

// label cuts the pair into qa-shard's windows and labels each.
func label(q, ctx qa.Tokens, g gold, tpl qa.Template, s qa.Settings) ([]labelled, error) {
	last := -1 // the context token that ends the answer: the last starting before its end
	for i := g.Token; i < ctx.Len() && int(ctx.Offsets[i].Start) < g.End; i++ {
		last = i
	}
	if g.Token < 0 || last < 0 {
		return nil, fmt.Errorf("%s: no tokens for the answer at code points [%d,%d)", g.ID, g.Start, g.End)
	}
	ws, err := qa.Windows(q, ctx, tpl, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g.ID, err)
	}
	out := make([]labelled, len(ws))
	for i, w := range ws {
		out[i].win = w
		if g.Token >= w.From && last < w.To {
			off := w.ContextStart - w.From // the template and the question precede the context
			out[i].start, out[i].end = g.Token+off, last+off
		}
	}
	return out, nil
}

func writeWindow(w *bufio.Writer, l labelled) {
	head := []int32{int32(len(l.win.IDs)), int32(l.win.QuestionLen), int32(l.start), int32(l.end)}
	binary.Write(w, binary.LittleEndian, head)
	binary.Write(w, binary.LittleEndian, l.win.IDs)
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
