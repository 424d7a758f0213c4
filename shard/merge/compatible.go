package merge

import (
	"strings"

	"qa-shard/internal/journal"
)

// Differing names what two ranks' journals say they ran with that a merge
// holds equal and that differs: "input", "model", "settings",
// "questions", joined by " and "; "" when the ranks are of one run
// (qa-shard status reports the others as mismatched).
func Differing(a, b journal.Fingerprint) string {
	var d []string
	for _, c := range [][3]string{{"input", a.Input, b.Input}, {"model", a.Model, b.Model}, {"settings", a.Settings, b.Settings}, {"questions", a.Questions, b.Questions}} {
		if c[1] != c[2] {
			d = append(d, c[0])
		}
	}
	return strings.Join(d, " and ")
}
