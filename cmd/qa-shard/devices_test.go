package main

import "testing"

// This machine's NVML, whatever it is: no driver and a GPU machine both
// exit 0; a bad flag is a usage error.
func TestDevicesCmd(t *testing.T) {
	if code := devicesCmd(nil); code != exitOK {
		t.Errorf("devicesCmd() = %d", code)
	}
	if code := devicesCmd([]string{"--bogus"}); code != exitUsage {
		t.Errorf("devicesCmd(--bogus) = %d", code)
	}
}
