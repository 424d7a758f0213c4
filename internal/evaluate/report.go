package evaluate

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Evaluate scores answers against every gold question: a question without
// an answer scores 0 and counts as missing; answers to questions the gold
// file does not hold are ignored. split is the token depth separating
// "within" from "beyond" (512: what a BERT reader that truncates sees).
func Evaluate(gold []Gold, answers map[Key]string, split int) Report {
	rep := Report{Split: split}
	var sums [3][2]float64
	for _, g := range gold {
		pred, ok := answers[Key{g.ID, g.Question}]
		em, f1 := ExactMatch(pred, g.Answer), F1(pred, g.Answer)
		if !ok {
			em, f1 = 0, 0
		}
		part := &rep.Within
		idx := 1
		if g.Token >= split {
			part, idx = &rep.Beyond, 2
		}
		for _, s := range []*Score{&rep.Overall, part} {
			s.N++
			if !ok {
				s.Missing++
			}
		}
		for _, i := range []int{0, idx} {
			sums[i][0] += em
			sums[i][1] += f1
		}
	}
	for i, s := range []*Score{&rep.Overall, &rep.Within, &rep.Beyond} {
		if s.N > 0 {
			s.EM = 100 * sums[i][0] / float64(s.N)
			s.F1 = 100 * sums[i][1] / float64(s.N)
		}
	}
	return rep
}

// Row is one reader's line in a side-by-side table.
type Row struct {
	Label  string
	Report Report
}

// WriteTable prints the readers side by side: EM and F1 overall, within
// and beyond the split, and how many questions had no answer.
func WriteTable(w io.Writer, rows []Row) error {
	if len(rows) == 0 {
		return nil
	}
	r0 := rows[0].Report
	fmt.Fprintf(w, "%d questions: %d with the answer starting within the first %d tokens of its document, %d beyond\n",
		r0.Overall.N, r0.Within.N, r0.Split, r0.Beyond.N)
	width := len("reader")
	for _, r := range rows {
		width = max(width, len(r.Label))
	}
	fmt.Fprintf(w, "%-*s  %-13s  %-13s  %s\n", width, "", "overall", fmt.Sprintf("within %d", r0.Split), fmt.Sprintf("beyond %d", r0.Split))
	fmt.Fprintf(w, "%-*s  %6s %6s  %6s %6s  %6s %6s  %s\n", width, "reader", "EM", "F1", "EM", "F1", "EM", "F1", "missing")
	for _, r := range rows {
		o, in, out := r.Report.Overall, r.Report.Within, r.Report.Beyond
		if _, err := fmt.Fprintf(w, "%-*s  %6.1f %6.1f  %6.1f %6.1f  %6.1f %6.1f  %7d\n",
			width, r.Label, o.EM, o.F1, in.EM, in.F1, out.EM, out.F1, o.Missing); err != nil {
			return err
		}
	}
	return nil
}

// Files scores each answers file against the gold file, one row per file,
// in order. An argument is LABEL=FILE, or a FILE labelled by its base name
// without ".jsonl".
func Files(gold string, answers []string, split int) ([]Row, error) {
	g, err := ReadGold(gold)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(answers))
	for _, arg := range answers {
		label, path, ok := strings.Cut(arg, "=")
		if !ok {
			label, path = strings.TrimSuffix(filepath.Base(arg), ".jsonl"), arg
		}
		a, err := ReadAnswers(path)
		if err != nil {
			return nil, err
		}
		rows = append(rows, Row{Label: label, Report: Evaluate(g, a, split)})
	}
	return rows, nil
}
