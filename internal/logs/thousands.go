package logs

import "strconv"

// Thousands writes n as the lines and tables a person reads show counts:
// with commas between groups of three digits (12,345).
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
