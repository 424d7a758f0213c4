package main

import "fmt"

// helpCmd: `qa-shard help [SUBCOMMAND]`.
func helpCmd(args []string) error {
	if len(args) == 0 {
		return runCmd([]string{"--help"})
	}
	c := command(args[0])
	switch {
	case c == nil:
		return fmt.Errorf("%w: no subcommand %q: use run, merge, status, tokenize, devices, bench, quantize, eval, export or version", errUsage, args[0])
	case len(args) > 1:
		return fmt.Errorf("%w: help takes one subcommand", errUsage)
	}
	return c([]string{"--help"})
}
