package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
	"qa-shard/internal/isa"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// versionCmd prints the version.
func versionCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard version", pflag.ContinueOnError)
	if err := cli.Parse(fs, args, "Usage: qa-shard version\n\nPrints the version of this build, and this CPU with the instruction set that\ndecides its int8 kernels (AVX2, AVX-512, AVX-512 VNNI, AVX-VNNI or AMX)."); err != nil {
		return err
	}
	if err := cli.NoArgs(fs); err != nil {
		return err
	}
	fmt.Printf("qa-shard %s\ncpu: %s, %s\n", version, isa.Model(), isa.Detect())
	return nil
}
