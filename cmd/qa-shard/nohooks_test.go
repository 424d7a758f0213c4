//go:build !testhooks

package main

// installHooks has nothing to install: without the tag testhooks the
// tests that stop, pause or kill a child at a document are not built
// (make test sets the tag).
func installHooks() {}
