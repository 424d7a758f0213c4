package evaluate

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// datasetsRow is a row of Hugging Face datasets' squad_v2, as its Parquet
// files lay it out: answers a struct of two lists.
type datasetsRow struct {
	ID       string `parquet:"id"`
	Title    string `parquet:"title"`
	Context  string `parquet:"context"`
	Question string `parquet:"question"`
	Answers  struct {
		Text        []string `parquet:"text,list"`
		AnswerStart []int32  `parquet:"answer_start,list"`
	} `parquet:"answers"`
}

// TestColumnsGold: the datasets' columns read the same from JSON lines and
// Parquet: one question per row by id, several gold answers, none for an
// impossible question; answers are matched by the record's id, or its
// question_id. Their gold has no token positions.
func TestColumnsGold(t *testing.T) {
	dir := t.TempDir()
	rows := []datasetsRow{{ID: "56be85543aeaaa14008c9063", Title: "Beyoncé", Context: "Beyoncé Giselle Knowles-Carter (born September 4, 1981)", Question: "When was she born?"},
		{ID: "5a8d7bf7df8bba001a0f9ab1", Title: "Beyoncé", Context: "...", Question: "What is her middle name?"}}
	rows[0].Answers.Text, rows[0].Answers.AnswerStart = []string{"September 4, 1981", "1981"}, []int32{39, 52}
	pq := filepath.Join(dir, "validation.parquet")
	writeParquet(t, pq, rows)
	var lines []string
	for _, r := range rows {
		text, err := json.Marshal(append([]string{}, r.Answers.Text...)) // [] as the datasets write it, not null
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf(`{"id": %q, "title": %q, "context": %q, "question": %q, "answers": {"text": %s, "answer_start": [39, 52]}}`,
			r.ID, r.Title, r.Context, r.Question, text))
	}
	jl := filepath.Join(dir, "validation.jsonl")
	write(t, jl, []byte(strings.Join(lines, "\n")+"\n"))
	answers := filepath.Join(dir, "answers.jsonl")
	write(t, answers, []byte(`{"id":"56be85543aeaaa14008c9063","question":"When was she born?","answer":"in 1981"}
{"id":"beyonce:0","question":"What is her middle name?","question_id":"5a8d7bf7df8bba001a0f9ab1","answer":"Giselle"}
`))
	for _, path := range []string{pq, jl} {
		set, rows, err := Files(path, []string{answers}, 512)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		if !set.ByQuestion || set.Positions() || len(set.Questions) != 2 || len(set.Questions[0].Answers) != 2 || set.Questions[1].HasAnswer() ||
			set.Questions[0].Question != "When was she born?" {
			t.Errorf("%s: %+v", filepath.Base(path), set)
		}
		// "in 1981" against "1981": EM 0, F1 2/3 (P 1/2, R 1); "Giselle" for an impossible question: 0.
		r := rows[0].Report
		if r.Overall.EM != 0 || fmt.Sprintf("%.4f", r.Overall.F1) != "33.3333" || r.HasAns.N != 1 || r.NoAns.N != 1 || r.Overall.Missing != 0 {
			t.Errorf("%s: %+v", filepath.Base(path), r)
		}
	}
	write(t, jl, []byte(`{"id": "x", "question": "q", "answers": {"answer_start": [1]}}`+"\n"))
	if _, err := ReadGold(jl); err == nil || !strings.Contains(err.Error(), "answers.text") {
		t.Errorf("a row without answers.text: %v", err)
	}
	write(t, jl, []byte(`{"id": "x", "question": "q", "answers": {"text": []}}`+"\n"+`{"id": "x", "question": "r", "answers": {"text": []}}`+"\n"))
	if _, err := ReadGold(jl); err == nil || !strings.Contains(err.Error(), "question id x appears twice") {
		t.Errorf("a repeated question id: %v", err)
	}
}
