package qa

import (
	"slices"
	"testing"
)

func TestAnswers(t *testing.T) {
	const text = "Paris is in France. paris has the Tour Eiffel. 🗼 Tour"
	tests := []struct {
		name    string
		mut     func(*Settings)
		results []WindowResult
		want    []Answer
	}{
		{name: "same span in two overlapping windows: scores added",
			mut: func(s *Settings) { s.TopK = 3 },
			results: []WindowResult{
				{Candidates: []Candidate{{12, 18, 0.5, 0}}},
				{Candidates: []Candidate{{12, 18, 0.25, 0}, {0, 5, 0.125, 0}}},
			},
			want: []Answer{{"France", 0.75, 12, 18, 0, 0}, {"Paris", 0.125, 0, 5, 0, 0}}},
		{name: "case-insensitive merge keeps the first text and offsets",
			mut: func(s *Settings) { s.TopK = 3 },
			results: []WindowResult{
				{Candidates: []Candidate{{0, 5, 0.25, 0}}},
				{Candidates: []Candidate{{20, 25, 0.5, 0}}},
			},
			want: []Answer{{"Paris", 0.75, 0, 5, 0, 0}}},
		{name: "scores add as float64",
			results: []WindowResult{
				{Candidates: []Candidate{{0, 5, 0.1, 0}}},
				{Candidates: []Candidate{{0, 5, 0.2, 0}}},
			},
			want: []Answer{{"Paris", float64(float32(0.1)) + float64(float32(0.2)), 0, 5, 0, 0}}},
		{name: "top k cuts after sorting",
			results: []WindowResult{
				{Candidates: []Candidate{{0, 5, 0.25, 0}, {12, 18, 0.5, 0}}},
			},
			want: []Answer{{"France", 0.5, 12, 18, 0, 0}}},
		{name: "equal scores keep their order",
			mut: func(s *Settings) { s.TopK = 2 },
			results: []WindowResult{
				{Candidates: []Candidate{{12, 18, 0.5, 0}}},
				{Candidates: []Candidate{{0, 5, 0.5, 0}}},
			},
			want: []Answer{{"France", 0.5, 12, 18, 0, 0}, {"Paris", 0.5, 0, 5, 0, 0}}},
		{name: "null answer: the smallest null score of all windows",
			mut: func(s *Settings) { s.TopK, s.HandleImpossible = 2, true },
			results: []WindowResult{
				{Candidates: []Candidate{{0, 5, 0.25, 0}}, NullScore: 0.75},
				{Candidates: []Candidate{{12, 18, 0.125, 0}}, NullScore: 0.5},
				{NullScore: 0.875},
			},
			want: []Answer{{"", 0.5, 0, 0, 0, 0}, {"Paris", 0.25, 0, 5, 0, 0}}},
		{name: "null answer goes after answers with the same score",
			mut: func(s *Settings) { s.TopK, s.HandleImpossible = 2, true },
			results: []WindowResult{
				{Candidates: []Candidate{{0, 5, 0.5, 0}}, NullScore: 0.5},
			},
			want: []Answer{{"Paris", 0.5, 0, 5, 0, 0}, {"", 0.5, 0, 0, 0, 0}}},
		{name: "without handle impossible the null score is ignored",
			results: []WindowResult{
				{Candidates: []Candidate{{0, 5, 0.25, 0}}, NullScore: 0.75},
			},
			want: []Answer{{"Paris", 0.25, 0, 5, 0, 0}}},
		{name: "no candidates at all",
			results: []WindowResult{{NullScore: 0.5}},
			want:    nil},
		{name: "offsets count code points, not bytes",
			results: []WindowResult{{Candidates: []Candidate{{47, 53, 0.5, 0}}}},
			want:    []Answer{{"🗼 Tour", 0.5, 47, 53, 0, 0}}},
		{name: "inverted or out-of-range spans slice like Python",
			mut:     func(s *Settings) { s.TopK = 3 },
			results: []WindowResult{{Candidates: []Candidate{{11, 3, 0.5, 0}, {49, 90, 0.25, 0}}}},
			want:    []Answer{{"", 0.5, 11, 3, 0, 0}, {"Tour", 0.25, 49, 90, 0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Answers(text, tt.results, settings(tt.mut))
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestAnswersMergeUsesPythonLower(t *testing.T) {
	// Go's strings.ToLower maps İ to plain "i", so "İstanbul" would merge
	// with "istanbul"; Python's str.lower gives "i̇stanbul" and does not.
	const text = "İstanbul istanbul"
	got := Answers(text, []WindowResult{{Candidates: []Candidate{{0, 8, 0.5, 0}, {9, 17, 0.25, 0}}}},
		settings(func(s *Settings) { s.TopK = 2 }))
	want := []Answer{{"İstanbul", 0.5, 0, 8, 0, 0}, {"istanbul", 0.25, 9, 17, 0, 0}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestPyLower(t *testing.T) {
	// Expected values are CPython 3.11's str.lower.
	tests := []struct{ in, want string }{
		{"Paris", "paris"},
		{"İstanbul", "i\u0307stanbul"},
		{"ΟΔΥΣΣΕΥΣ", "οδυσσευς"}, // final sigma at the end of a word
		{"ΣΑΣ ΣΑΣ.", "σας σας."}, // final before space and before '.'
		{"Σ", "σ"},               // alone: nothing cased before it
		{"AΣ'Β", "aσ'β"},         // the apostrophe is skipped: cased letter follows
		{"AΣ'", "aς'"},           // ... and here nothing cased follows
		{"A.Σ", "a.ς"},           // '.' is case-ignorable before it too
		{"1Σ", "1σ"},             // a digit is not cased
		{"ǅ", "ǆ"},               // titlecase digraph: simple mapping
		{"ẞ", "ß"},               // capital sharp s
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := PyLower(tt.in); got != tt.want {
				t.Fatalf("PyLower(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestAnswersLogits: the raw logits ride along with the HF answers without
// changing them. A merged answer keeps its largest span logit (not the sum:
// logits of two windows do not add up to anything), every answer carries
// the smallest null logit of the document's windows, and the empty answer's
// span logit is that null logit.
func TestAnswersLogits(t *testing.T) {
	const text = "Paris is in France. paris has the Tour Eiffel. 🗼 Tour"
	results := []WindowResult{
		{Candidates: []Candidate{{Start: 0, End: 5, Score: 0.25, Logit: 3.5}, {Start: 12, End: 18, Score: 0.125, Logit: 9}}, NullScore: 0.75, NullLogit: 2},
		{Candidates: []Candidate{{Start: 20, End: 25, Score: 0.5, Logit: 7.25}}, NullScore: 0.5, NullLogit: -1.5},
		{NullScore: 0.875, NullLogit: 4},
	}
	got := Answers(text, results, settings(func(s *Settings) { s.TopK, s.HandleImpossible = 3, true }))
	want := []Answer{
		{Text: "Paris", Score: 0.75, Start: 0, End: 5, SpanLogit: 7.25, NullLogit: -1.5},
		{Text: "", Score: 0.5, SpanLogit: -1.5, NullLogit: -1.5},
		{Text: "France", Score: 0.125, Start: 12, End: 18, SpanLogit: 9, NullLogit: -1.5},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	// The HF fields are those of the same windows without logits.
	for i := range results {
		results[i].NullLogit = 0
		for j := range results[i].Candidates {
			results[i].Candidates[j].Logit = 0
		}
	}
	plain := Answers(text, results, settings(func(s *Settings) { s.TopK, s.HandleImpossible = 3, true }))
	for i := range want {
		if plain[i].Text != got[i].Text || plain[i].Score != got[i].Score || plain[i].Start != got[i].Start || plain[i].End != got[i].End {
			t.Errorf("answer %d: %+v with logits, %+v without", i, got[i], plain[i])
		}
	}
}
