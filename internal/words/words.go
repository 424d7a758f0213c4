// Package words writes counts as people read them: "1 batch",
// "3 batches", "once", "twice".
package words

import "fmt"

// Count is n and its noun: one when n is 1, many otherwise.
func Count[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Times is how often something happened: once, twice, n times.
func Times[N ~int | ~int64](n N) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}
