package main

import (
	"fmt"

	"github.com/spf13/pflag"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// versionCmd prints the version.
func versionCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard version", pflag.ContinueOnError)
	if err := parseFlags(fs, args, "Usage: qa-shard version\n\nPrints the version of this build."); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	fmt.Printf("qa-shard %s\n", version)
	return nil
}
