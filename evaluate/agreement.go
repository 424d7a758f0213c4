package evaluate

import "math"

// Agreement is how one reader's answers agree with a reference reader's
// on the same (document, question) pairs: the reference's answers taken
// as the gold, as for an int8 copy against its float32 model.
type Agreement struct {
	// Pairs are the reference's answers; Missing of them have no answer
	// from the other reader (scored 0).
	Pairs, Missing int
	// Identical answers have the same text and offsets.
	Identical int
	// EM and F1 are the official script's, in percent, with the
	// reference's answer as the only gold answer.
	EM, F1 float64
	// MeanDrift and MaxDrift are the mean and largest |score - reference
	// score| over the pairs answered by both.
	MeanDrift, MaxDrift float64
}

// Agree compares other's answers with ref's, pair by pair.
func Agree(ref, other map[Key]Prediction) Agreement {
	var a Agreement
	var em, f1, drift float64
	for k, r := range ref {
		a.Pairs++
		o, ok := other[k]
		if !ok {
			a.Missing++
			continue
		}
		if o.Answer == r.Answer && o.Start == r.Start && o.End == r.End {
			a.Identical++
		}
		e, f := bestOf(o.Answer, []string{r.Answer})
		em, f1 = em+e, f1+f
		d := math.Abs(o.Score - r.Score)
		drift += d
		a.MaxDrift = max(a.MaxDrift, d)
	}
	if a.Pairs > 0 {
		a.EM, a.F1 = 100*em/float64(a.Pairs), 100*f1/float64(a.Pairs)
	}
	if n := a.Pairs - a.Missing; n > 0 {
		a.MeanDrift = drift / float64(n)
	}
	return a
}
