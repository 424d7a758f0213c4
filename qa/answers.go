package qa

import (
	"math"
	"slices"
	"sort"
)

// nullStart is HF's starting value for the minimum null score.
const nullStart = 1e6

// Answers merges the decoded windows of one (document, question) as HF's
// postprocess does: windows and their candidates are visited in order; a
// candidate whose text equals an answer already kept, compared after
// Python's str.lower, adds its score to it, otherwise it is appended. With
// HandleImpossible the empty answer scored by the smallest NullScore (from
// 1e6) is appended. Then a stable sort by score, descending, keeps TopK.
//
// The raw logits ride along (Answer.SpanLogit, Answer.NullLogit): an
// answer merged from several spans keeps the largest span logit, and
// every answer carries the smallest null logit of the windows.
//
// Offsets are code points as Go counts them when ranging over context;
// like Python slicing, they are clamped to the text and an inverted span
// gives "".
func Answers(context string, results []WindowResult, s Settings) []Answer {
	idx := newRuneIndex(context, results)
	var out []Answer
	index := map[string]int{} // lowered text -> position in out
	null := float64(nullStart)
	nullLogit := NullLogit(results)
	for _, r := range results {
		// Python's min(min_null_score, x) only replaces on a strictly
		// smaller value, so a NaN never wins.
		if ns := float64(r.NullScore); ns < null {
			null = ns
		}
		for _, c := range r.Candidates {
			text := idx.slice(int(c.Start), int(c.End))
			low := PyLower(text)
			if k, ok := index[low]; ok {
				out[k].Score += float64(c.Score)
				out[k].SpanLogit = max(out[k].SpanLogit, c.Logit)
				continue
			}
			index[low] = len(out)
			out = append(out, Answer{Text: text, Score: float64(c.Score), Start: int(c.Start), End: int(c.End), SpanLogit: c.Logit})
		}
	}
	if s.HandleImpossible {
		out = append(out, Answer{Score: null, SpanLogit: nullLogit})
	}
	for i := range out {
		out[i].NullLogit = nullLogit
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	if len(out) > s.TopK {
		out = out[:s.TopK]
	}
	return out
}

// NullLogit is the smallest null logit (first-token start_logit +
// end_logit) of a document's windows: SQuAD 2.0's null score as BERT's
// run_squad.py and transformers' run_qa.py take it, the evidence that the
// document holds no answer. 0 when there are no windows.
func NullLogit(results []WindowResult) float64 {
	if len(results) == 0 {
		return 0
	}
	m := math.Inf(1)
	for _, r := range results {
		m = min(m, r.NullLogit)
	}
	return m
}

// runeIndex maps the code-point offsets the candidates use to byte offsets
// with one pass over the text, so long documents are not converted to runes.
type runeIndex struct {
	text  string
	bytes map[int]int
	runes int
}

func newRuneIndex(text string, results []WindowResult) runeIndex {
	var want []int
	for _, r := range results {
		for _, c := range r.Candidates {
			want = append(want, int(c.Start), int(c.End))
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	idx := runeIndex{text: text, bytes: make(map[int]int, len(want))}
	k := 0
	for b := range text {
		for k < len(want) && want[k] <= idx.runes {
			idx.bytes[want[k]] = b
			k++
		}
		idx.runes++
	}
	return idx
}

// slice is Python's text[start:end] in code points for non-negative bounds.
func (x runeIndex) slice(start, end int) string {
	start = min(max(start, 0), x.runes)
	end = min(max(end, 0), x.runes)
	if start >= end {
		return ""
	}
	return x.text[x.byteAt(start):x.byteAt(end)]
}

func (x runeIndex) byteAt(r int) int {
	if r >= x.runes {
		return len(x.text)
	}
	return x.bytes[r]
}
