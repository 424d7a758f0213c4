package evaluate

import "sort"

// bestThresholds is evaluate-v2.0.py's find_all_best_thresh with the null
// odds of each answer (null_logit - span_logit, BERT's and transformers'
// null_odds.json) as its na_probs: starting from every question answered
// "" (the questions without an answer right), the answers are let in in
// order of rising odds, and the best exact match and F1 reached, with the
// odds at which each was first reached, are kept. The walk is the
// script's: questions in a stable order by odds, a question with an answer
// adding its score, one without losing 1 when its answer is not "", the
// threshold starting at 0.0 and moving only on a strict improvement. An
// empty answer's odds cannot matter (it adds 0), so it needs no logits; a
// non-empty answer without them leaves no threshold (nil, and how many
// lacked them). Questions without an answer record are left out of the
// walk and score 0, as elsewhere in the report; the totals are over every
// gold question.
func bestThresholds(gold []Gold, preds []*Prediction, em, f1 []float64) (*Best, int) {
	var order []int
	odds := make([]float64, len(gold))
	noLogits := 0
	for i, p := range preds {
		if p == nil {
			continue
		}
		if p.Answer != "" && !p.Logits {
			noLogits++
			continue
		}
		if p.Logits {
			odds[i] = p.NullLogit - p.SpanLogit
		}
		order = append(order, i)
	}
	if noLogits > 0 {
		return nil, noLogits
	}
	sort.SliceStable(order, func(a, b int) bool { return odds[order[a]] < odds[order[b]] })
	find := func(scores []float64) (float64, float64) {
		cur := 0.0
		for _, i := range order {
			if !gold[i].HasAnswer() {
				cur++
			}
		}
		best, thresh := cur, 0.0
		for _, i := range order {
			var diff float64
			switch {
			case gold[i].HasAnswer():
				diff = scores[i]
			case preds[i].Answer != "":
				diff = -1
			}
			cur += diff
			if cur > best {
				best, thresh = cur, odds[i]
			}
		}
		return 100 * best / float64(len(gold)), thresh
	}
	b := &Best{}
	b.EM, b.EMThresh = find(em)
	b.F1, b.F1Thresh = find(f1)
	return b, 0
}
