package metrics

import (
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/zap"
)

// testID labels every series of the tests' registries; metric adds it to
// the labels a test asks for.
var testID = Identity{Rank: 3, Host: "node-a"}

// families is one scrape, parsed from the text exposition.
type families map[string]*dto.MetricFamily

// scrape GETs /metrics through the same handler Serve uses.
func scrape(t *testing.T, r *Registry) families {
	t.Helper()
	rec := httptest.NewRecorder()
	handler(r, zap.NewNop()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: status %d: %s", rec.Code, rec.Body.String())
	}
	return parse(t, rec.Body)
}

func parse(t *testing.T, body io.Reader) families {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(body)
	if err != nil {
		t.Fatalf("parsing the exposition: %v", err)
	}
	return fams
}

// metric returns the series of family name whose labels are exactly
// labels (pairs of name, value) and testID's, or nil.
func (f families) metric(name string, labels ...string) *dto.Metric {
	fam := f[name]
	if fam == nil {
		return nil
	}
	want := map[string]string{"rank": "3", "host": "node-a"}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, m := range fam.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if maps.Equal(got, want) {
			return m
		}
	}
	return nil
}

// value returns the value of a counter or gauge series, failing if absent.
func (f families) value(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	m := f.metric(name, labels...)
	if m == nil {
		t.Fatalf("no series %s%v in the scrape", name, labels)
	}
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	}
	t.Fatalf("%s%v is neither a counter nor a gauge", name, labels)
	return 0
}

// names lists the families starting with prefix, sorted.
func (f families) names(prefix string) []string {
	var out []string
	for n := range f {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// expectValue checks one counter or gauge series.
func expectValue(t *testing.T, f families, want float64, name string, labels ...string) {
	t.Helper()
	if got := f.value(t, name, labels...); got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}
