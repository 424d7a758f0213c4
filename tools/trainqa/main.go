// Command trainqa cuts a corpus written by gencorpus (with its gold
// answers) into model windows exactly as qa-shard cuts them, and labels
// each window with its answer's start and end token, or [CLS] (0, 0) when
// the answer is not wholly inside, as SQuAD 2.0 training does. train.py,
// beside it, trains the demo model on the result:
//
//	go run ./tools/trainqa -corpus train.jsonl -gold train-gold.jsonl \
//	    -tokenizer build/models/tiny/tokenizer.json -out windows.bin
//
// The windows are framed by the tokenizer's pair template (BERT's [CLS] q
// [SEP] c [SEP], RoBERTa's <s> q </s></s> c </s>, ...). The output is
// little-endian int32: the magic "QAW2", then per window its length n, the
// question's first position and length, the context's first position and
// end (exclusive), the answer's start and end (0, 0: none), then the n
// input ids and the n token type ids, as qa.Windows lays them out. OUT.json
// beside it (see layout) gives the tokenizer's special ids and vocabulary
// size, and whether the model takes token types at all (-family).
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
	"qa-shard/tokenizer/modeldir"
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
	var a args
	flag.StringVar(&a.corpus, "corpus", "", "JSONL corpus from gencorpus")
	flag.StringVar(&a.gold, "gold", "", "its gold answers (gencorpus -gold, with the same -tokenizer)")
	flag.StringVar(&a.tokenizer, "tokenizer", "", "tokenizer.json (tokenizer_config.json and special_tokens_map.json beside it are read too), or a model folder, read as qa-shard reads it")
	flag.StringVar(&a.out, "out", "", "output file of labelled windows (and OUT.json, its layout)")
	flag.StringVar(&a.family, "family", "bert", "the model's export layout: bert or a testmodel family (roberta: no token types)")
	a.settings = qa.DefaultSettings()
	flag.IntVar(&a.settings.MaxSeqLen, "max-seq-len", a.settings.MaxSeqLen, "tokens per window, as qa-shard --max-seq-len")
	flag.IntVar(&a.settings.DocStride, "doc-stride", a.settings.DocStride, "overlap of windows, as qa-shard --doc-stride")
	flag.Parse()
	if a.corpus == "" || a.gold == "" || a.tokenizer == "" || a.out == "" || flag.NArg() > 0 {
		flag.Usage()
		return errors.New("need -corpus, -gold, -tokenizer and -out")
	}
	n, positive, err := writeWindows(a)
	if err != nil {
		return err
	}
	fmt.Printf("%d windows (%d with the answer) in %s\n", n, positive, a.out)
	return nil
}

type args struct {
	corpus, gold, tokenizer, out, family string
	settings                             qa.Settings
}

// writeWindows cuts and labels every gold question's windows into a.out
// and writes the layout beside it; it returns how many windows it wrote
// and how many hold the answer.
func writeWindows(a args) (windows, positive int, err error) {
	fam, err := family(a.family)
	if err != nil {
		return 0, 0, err
	}
	tok, err := modeldir.Load(a.tokenizer) // a tokenizer.json or a model folder
	if err != nil {
		return 0, 0, err
	}
	lay, err := newLayout(tok, a.tokenizer, fam, a.settings)
	if err != nil {
		return 0, 0, err
	}
	docs, err := readContexts(a.corpus)
	if err != nil {
		return 0, 0, err
	}
	golds, err := readGold(a.gold)
	if err != nil {
		return 0, 0, err
	}
	f, err := os.Create(a.out)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	binary.Write(w, binary.LittleEndian, int32(windowsMagic))
	var ctx qa.Tokens
	ctxID := ""
	for _, g := range golds {
		text, ok := docs[g.ID]
		if !ok {
			return 0, 0, fmt.Errorf("gold answer for %s, which is not in %s", g.ID, a.corpus)
		}
		if g.ID != ctxID {
			ctx, ctxID = tok.Encode(text), g.ID
		}
		q := tok.Encode(g.Question)
		lay.nameQuestion(tok, q, g.Question)
		ls, err := label(q, ctx, g, tok.Template(), a.settings)
		if err != nil {
			return 0, 0, err
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
		return 0, 0, fmt.Errorf("%s: %w", a.out, err)
	}
	if err := f.Close(); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", a.out, err)
	}
	return windows, positive, lay.write(a.out + ".json")
}

// labelled is a window with the positions of its answer's first and last
// token, or 0, 0 ([CLS]) when the answer is not wholly inside.
type labelled struct {
	win        qa.Window
	start, end int
}

// label cuts the pair into qa-shard's windows and labels each.
func label(q, ctx qa.Tokens, g gold, tpl qa.Template, s qa.Settings) ([]labelled, error) {
	if g.Token < 0 || g.Token >= ctx.Len() || int(ctx.Offsets[g.Token].Start) != g.Start {
		return nil, fmt.Errorf("%s: gold token %d does not start the answer at code point %d (gold written with another tokenizer?)",
			g.ID, g.Token, g.Start)
	}
	last := g.Token // the context token that ends the answer: the last starting before its end
	for i := g.Token; i < ctx.Len() && int(ctx.Offsets[i].Start) < g.End; i++ {
		last = i
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

// writeWindow writes one record; bufio's error sticks until Flush.
func writeWindow(w *bufio.Writer, l labelled) {
	win := l.win
	head := []int32{int32(len(win.IDs)), int32(win.QuestionStart), int32(win.QuestionLen),
		int32(win.ContextStart), int32(win.ContextStart + win.To - win.From), int32(l.start), int32(l.end)}
	binary.Write(w, binary.LittleEndian, head)
	binary.Write(w, binary.LittleEndian, win.IDs)
	binary.Write(w, binary.LittleEndian, win.TypeIDs)
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
