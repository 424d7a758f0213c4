//go:build testhooks

package merge

// TestStep, set only by the tests (cmd/qa-shard/hooks_test.go), is called
// before every change merge makes on disk (Options.Step), to fail or kill
// the merge at a chosen one. Only a build with the tag testhooks has it.
var TestStep func(step string) error

// testStep is merge's step hook, when a test set one.
func testStep() func(string) error { return TestStep }
