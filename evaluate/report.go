package evaluate

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Evaluate scores answers against every gold question as the official
// script does: each question's exact match and F1 are the maximum over
// its gold answers (over [""] for a question without one), averaged
// overall and over the questions with and without an answer; where the
// gold knows token positions, also within and beyond split tokens (512:
// what a BERT reader that truncates sees); where some question has no
// answer, the best no-answer thresholds (Best). The official script
// needs an answer for every question; here a question without an answer
// record scores 0 and counts as missing, and answers to questions the
// gold does not hold are ignored.
func Evaluate(gold GoldSet, answers map[Key]Prediction, split int) (Report, error) {
	preds, err := match(gold, answers)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Split: split, Positions: gold.Positions(), Unscored: len(answers)}
	for _, p := range preds {
		if p != nil {
			rep.Unscored--
		}
	}
	em, f1 := make([]float64, len(preds)), make([]float64, len(preds))
	noAns := false
	for i, g := range gold.Questions {
		p := preds[i]
		if p != nil && p.Error {
			rep.Errors++ // its "" answer scores as wrong, or right where the gold has no answer
		}
		if p != nil {
			em[i], f1[i] = bestOf(p.Answer, g.Answers)
		}
		parts := []*Score{&rep.Overall, &rep.HasAns}
		if !g.HasAnswer() {
			parts[1], noAns = &rep.NoAns, true
		}
		if rep.Positions {
			if g.Token >= split {
				parts = append(parts, &rep.Beyond)
			} else {
				parts = append(parts, &rep.Within)
			}
		}
		for _, s := range parts {
			s.N++
			s.EM += em[i]
			s.F1 += f1[i]
			if p == nil {
				s.Missing++
			}
		}
	}
	for _, s := range []*Score{&rep.Overall, &rep.Within, &rep.Beyond, &rep.HasAns, &rep.NoAns} {
		if s.N > 0 {
			s.EM = 100 * s.EM / float64(s.N)
			s.F1 = 100 * s.F1 / float64(s.N)
		}
	}
	if noAns {
		rep.Best, rep.NoLogits = bestThresholds(gold.Questions, preds, em, f1)
	}
	return rep, nil
}

// match finds each gold question's answer record (nil when there is
// none): by (document id, question), or by question id, which is a
// record's question_id, else its id (a row of the datasets' columns is
// one question).
func match(gold GoldSet, answers map[Key]Prediction) ([]*Prediction, error) {
	out := make([]*Prediction, len(gold.Questions))
	if !gold.ByQuestion {
		for i, g := range gold.Questions {
			if p, ok := answers[Key{g.ID, g.Question}]; ok {
				out[i] = &p
			}
		}
		return out, nil
	}
	byID := make(map[string]Prediction, len(answers))
	twice := map[string]int{}
	for k, p := range answers {
		id := p.QuestionID
		if id == "" {
			id = k.ID
		}
		if _, dup := byID[id]; dup {
			twice[id]++
		}
		byID[id] = p
	}
	for i, g := range gold.Questions {
		if n := twice[g.ID]; n > 0 {
			return nil, fmt.Errorf("%w: %d answer records carry the id %s of the gold's question %q: the gold (%s) names each question by its own id, so ask each question of its own record (SQuAD JSON input keeps the questions' ids as question_id; a row of the datasets' columns is one question)",
				ErrInput, n+1, g.ID, g.Question, gold.Kind)
		}
		if p, ok := byID[g.ID]; ok {
			out[i] = &p
		}
	}
	return out, nil
}

// Row is one reader's line in a side-by-side table.
type Row struct {
	Label  string
	Report Report
}

// group is one pair of columns of the table.
type group struct {
	title string
	head  [2]string
	cells func(Report) string
}

func pair(a, b float64) string { return fmt.Sprintf("%6.1f %6.1f", a, b) }

// WriteTable prints the readers side by side: EM and F1 overall; within
// and beyond the split when the gold knows token positions (else a line
// says it does not); with and without an answer, and the best no-answer
// thresholds, when some question has none; and how many questions had no
// answer record.
func WriteTable(w io.Writer, gold GoldSet, rows []Row) error {
	if len(rows) == 0 {
		return nil
	}
	r0 := rows[0].Report
	groups := []group{{title: "overall", head: [2]string{"EM", "F1"}, cells: func(r Report) string { return pair(r.Overall.EM, r.Overall.F1) }}}
	if r0.Positions {
		fmt.Fprintf(w, "%d questions: %d with the answer starting within the first %d tokens of its document, %d beyond\n",
			r0.Overall.N, r0.Within.N, r0.Split, r0.Beyond.N)
		groups = append(groups,
			group{title: fmt.Sprintf("within %d", r0.Split), head: [2]string{"EM", "F1"}, cells: func(r Report) string { return pair(r.Within.EM, r.Within.F1) }},
			group{title: fmt.Sprintf("beyond %d", r0.Split), head: [2]string{"EM", "F1"}, cells: func(r Report) string { return pair(r.Beyond.EM, r.Beyond.F1) }})
	} else {
		fmt.Fprintf(w, "%d questions; token positions: not in this gold (%s), so the answers are not split at %d tokens\n", r0.Overall.N, gold.Kind, r0.Split)
	}
	if r0.NoAns.N > 0 {
		fmt.Fprintf(w, "%d with an answer (HasAns), %d without (NoAns); best: EM and F1 with an answer replaced by \"\" where null_logit - span_logit > thresh (evaluate-v2.0.py's best thresholds)\n",
			r0.HasAns.N, r0.NoAns.N)
		best := func(f func(*Best) string) func(Report) string {
			return func(r Report) string {
				if r.Best == nil {
					return fmt.Sprintf("%6s %6s", "-", "-")
				}
				return f(r.Best)
			}
		}
		groups = append(groups,
			group{title: "HasAns", head: [2]string{"EM", "F1"}, cells: func(r Report) string { return pair(r.HasAns.EM, r.HasAns.F1) }},
			group{title: "NoAns", head: [2]string{"EM", "F1"}, cells: func(r Report) string { return pair(r.NoAns.EM, r.NoAns.F1) }},
			group{title: "best EM", head: [2]string{"EM", "thresh"}, cells: best(func(b *Best) string { return fmt.Sprintf("%6.1f %6.2f", b.EM, b.EMThresh) })},
			group{title: "best F1", head: [2]string{"F1", "thresh"}, cells: best(func(b *Best) string { return fmt.Sprintf("%6.1f %6.2f", b.F1, b.F1Thresh) })})
	}
	width := len("reader")
	for _, r := range rows {
		width = max(width, len(r.Label))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s", width, "")
	for i, g := range groups {
		if i < len(groups)-1 {
			fmt.Fprintf(&b, "  %-13s", g.title)
		} else {
			fmt.Fprintf(&b, "  %s", g.title)
		}
	}
	fmt.Fprintf(&b, "\n%-*s", width, "reader")
	for _, g := range groups {
		fmt.Fprintf(&b, "  %6s %6s", g.head[0], g.head[1])
	}
	b.WriteString("  missing\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s", width, r.Label)
		for _, g := range groups {
			b.WriteString("  " + g.cells(r.Report))
		}
		fmt.Fprintf(&b, "  %7d\n", r.Report.Overall.Missing)
	}
	for _, r := range rows {
		if r.Report.Errors > 0 {
			fmt.Fprintf(&b, "%s: %d of the %d questions have an error record (the document or question could not be answered; each record says why), scored as the answer \"\"\n", r.Label, r.Report.Errors, r.Report.Overall.N)
		}
		if r.Report.Unscored > 0 {
			records := "answer records"
			if r.Report.Unscored == 1 {
				records = "answer record"
			}
			fmt.Fprintf(&b, "%s: %d %s for questions the gold does not hold, not scored\n", r.Label, r.Report.Unscored, records)
		}
		if r.Report.NoLogits > 0 {
			fmt.Fprintf(&b, "%s: no best threshold: %d answers have no span_logit and null_logit (answers written by an older qa-shard, or another reader)\n", r.Label, r.Report.NoLogits)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints one JSON object per reader with the official script's
// keys (exact, f1, total; HasAns_ and NoAns_ ones where the gold has such
// questions; best_exact, best_exact_thresh, best_f1, best_f1_thresh where
// computed), plus reader, missing and, with token positions, within_ and
// beyond_ ones.
func WriteJSON(w io.Writer, rows []Row) error {
	enc := json.NewEncoder(w)
	for _, r := range rows {
		rep := r.Report
		m := map[string]any{"reader": r.Label, "exact": rep.Overall.EM, "f1": rep.Overall.F1, "total": rep.Overall.N, "missing": rep.Overall.Missing, "errors": rep.Errors, "unscored": rep.Unscored}
		add := func(prefix string, s Score) {
			if s.N > 0 {
				m[prefix+"_exact"], m[prefix+"_f1"], m[prefix+"_total"] = s.EM, s.F1, s.N
			}
		}
		add("HasAns", rep.HasAns)
		add("NoAns", rep.NoAns)
		if rep.Positions {
			add(fmt.Sprintf("within_%d", rep.Split), rep.Within)
			add(fmt.Sprintf("beyond_%d", rep.Split), rep.Beyond)
		}
		if b := rep.Best; b != nil {
			m["best_exact"], m["best_exact_thresh"], m["best_f1"], m["best_f1_thresh"] = b.EM, b.EMThresh, b.F1, b.F1Thresh
		}
		if err := enc.Encode(m); err != nil {
			return err
		}
	}
	return nil
}

// Files scores each answers file against the gold file, one row per file,
// in order. An argument is LABEL=FILE, or a FILE labelled by its base name
// without ".jsonl".
func Files(gold string, answers []string, split int) (GoldSet, []Row, error) {
	g, err := ReadGold(gold)
	if err != nil {
		return g, nil, err
	}
	rows := make([]Row, 0, len(answers))
	for _, arg := range answers {
		label, path, ok := strings.Cut(arg, "=")
		if !ok {
			label, path = strings.TrimSuffix(filepath.Base(arg), ".jsonl"), arg
		}
		a, err := ReadAnswers(path)
		if err != nil {
			return g, nil, err
		}
		if len(a) == 0 {
			return g, nil, fmt.Errorf("%w: %s holds no answer records: give the --output of a qa-shard run", ErrInput, path)
		}
		rep, err := Evaluate(g, a, split)
		if err != nil {
			return g, nil, fmt.Errorf("%s: %w", path, err)
		}
		rows = append(rows, Row{Label: label, Report: rep})
	}
	return g, rows, nil
}
