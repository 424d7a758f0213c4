package main

import "github.com/spf13/pflag"

// Every line on standard error comes from a logs logger in the format
// --log-format names (package logs); data goes to standard output.

// addLogFlags gives a subcommand the log flags.
func addLogFlags(fs *pflag.FlagSet, format, level *string) {
	fs.StringVar(format, "log-format", "auto", "auto (console on a terminal, JSON otherwise), console or json: every line on standard error follows it")
	fs.StringVar(level, "log-level", "info", "debug, info, warn or error")
}
