package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"qa-shard/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// versionCmd prints the version.
func versionCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard version", pflag.ContinueOnError)
	if err := cli.Parse(fs, args, "Usage: qa-shard version\n\nPrints the version of this build."); err != nil {
		return err
	}
	if err := cli.NoArgs(fs); err != nil {
		return err
	}
	fmt.Printf("qa-shard %s\n", version)
	return nil
}
