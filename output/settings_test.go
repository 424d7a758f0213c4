package output

import (
	"slices"
	"strings"
	"testing"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/record"
	"qa-shard/qa"
)

// TestColumnsRoundTrip: the columns read back from the settings a
// journal records are the run's (kept fields, their kinds, the id's kind,
// top-k), with and without kept fields; text without them is refused.
func TestColumnsRoundTrip(t *testing.T) {
	three := qa.DefaultSettings()
	three.TopK = 3
	for _, s := range []AnswerSettings{
		{QA: qa.DefaultSettings(), Schema: record.Schema{ID: record.String, Keep: []record.Kind{}}},
		{QA: three, Fields: record.Fields{Keep: []string{"url", "meta.n", "flag"}},
			Schema: record.Schema{ID: record.Int, Keep: []record.Kind{record.String, record.Float, record.JSON}}},
	} {
		text, err := fingerprint.Text(s.Keyed())
		if err != nil {
			t.Fatal(err)
		}
		keep, schema, topK, err := Columns(text)
		if err != nil || !slices.Equal(keep, s.Fields.Keep) || schema.ID != s.Schema.ID || !slices.Equal(schema.Keep, s.Schema.Keep) || topK != s.QA.TopK {
			t.Errorf("Columns(%s) = %v, %+v, %d, %v; want %v, %+v, %d", text, keep, schema, topK, err, s.Fields.Keep, s.Schema, s.QA.TopK)
		}
	}
	if _, _, _, err := Columns(`{"top-k":1}`); err == nil || !strings.Contains(err.Error(), "older qa-shard") {
		t.Errorf("settings without the columns: %v", err)
	}
}
