package logs

import "testing"

// TestThousands: counts in messages are grouped as a person reads them.
func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 2000: "2,000", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
