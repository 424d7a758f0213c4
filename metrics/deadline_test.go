package metrics

import "testing"

func TestDeadlineFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, c := range []struct {
		env  map[string]string
		at   float64
		from string
		bad  bool
	}{
		{map[string]string{}, 0, "", false},
		{map[string]string{EnvSlurmJobEnd: "1764633600"}, 1764633600, EnvSlurmJobEnd, false},
		{map[string]string{EnvSlurmJobEnd: "1764633600", EnvDeadline: "1764640000"}, 1764640000, EnvDeadline, false},
		{map[string]string{EnvSlurmJobEnd: "Unlimited"}, 0, EnvSlurmJobEnd, true},
		{map[string]string{EnvDeadline: "-5"}, 0, EnvDeadline, true},
	} {
		at, from, err := deadlineFromEnv(env(c.env))
		if at != c.at || from != c.from || (err != nil) != c.bad {
			t.Errorf("%v: %v from %q, error %v", c.env, at, from, err)
		}
	}
}

// TestDeadlineSeries: the series exists only once a deadline is set, with
// the rank labels, and setting it again updates it.
func TestDeadlineSeries(t *testing.T) {
	r := new(testID)
	const name = "qa_shard_deadline_timestamp_seconds"
	if f := scrape(t, r); f[name] != nil {
		t.Fatal("a deadline series without a deadline")
	}
	r.SetDeadline(1764633600)
	r.SetDeadline(1764640000)
	m := scrape(t, r).metric(name)
	if m == nil || m.GetGauge().GetValue() != 1764640000 {
		t.Errorf("deadline series %v, want 1764640000 with the rank labels", m)
	}
}
