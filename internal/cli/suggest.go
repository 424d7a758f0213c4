package cli

import (
	"strings"

	"github.com/spf13/pflag"
)

// suggest returns " (did you mean --output?)" for an unknown flag whose
// name is within a few typing mistakes of one of fs's flags, else "".
func suggest(fs *pflag.FlagSet, args []string) string {
	unknown := ""
	for _, a := range args {
		if !strings.HasPrefix(a, "--") || a == "--" {
			continue
		}
		name, _, _ := strings.Cut(a[2:], "=")
		if fs.Lookup(name) == nil {
			unknown = name
			break
		}
	}
	if unknown == "" {
		return ""
	}
	best, bestD := "", 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := distance(unknown, f.Name); best == "" || d < bestD {
			best, bestD = f.Name, d
		}
	})
	// Two mistakes at most, and fewer than half the name: "--ouput" is
	// --output, "--foo" is nothing.
	if best == "" || bestD > 2 || 2*bestD >= len(unknown) {
		return ""
	}
	return " (did you mean --" + best + "?)"
}

// distance is the Damerau-Levenshtein (optimal string alignment) distance:
// insertions, deletions, substitutions and swaps of neighbours.
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
