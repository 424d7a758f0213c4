package evaluate

import (
	"fmt"
	"io"
	"text/tabwriter"
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
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\toverall (%d)\t\twithin %d tokens (%d)\t\tbeyond %d (%d)\t\t\t\n",
		r0.Overall.N, r0.Split, r0.Within.N, r0.Split, r0.Beyond.N)
	fmt.Fprintf(tw, "reader\tEM\tF1\tEM\tF1\tEM\tF1\tmissing\t\n")
	for _, r := range rows {
		o, in, out := r.Report.Overall, r.Report.Within, r.Report.Beyond
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t\n",
			r.Label, o.EM, o.F1, in.EM, in.F1, out.EM, out.F1, o.Missing)
	}
	return tw.Flush()
}
