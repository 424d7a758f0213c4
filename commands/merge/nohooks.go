//go:build !testhooks

package merge

// testStep is merge's step hook (Options.Step): none in the product (see
// testhooks.go, build tag testhooks).
func testStep() func(string) error { return nil }
