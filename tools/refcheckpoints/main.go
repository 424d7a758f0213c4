// Command refcheckpoints writes the tiny checkpoint folders of every family
// the graph builder builds (testmodel.Checkpoints: config.json, seeded
// model.safetensors, tokenizer files) into a folder, for
// tools/reference/answers.py to load into transformers' own classes
// (make test-reference).
package main

import (
	"flag"
	"fmt"
	"os"

	"qa-shard/internal/testfixtures"
)

func main() {
	out := flag.String("out", "", "folder to write the checkpoint folders into")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: refcheckpoints -out DIR")
		os.Exit(2)
	}
	if err := testfixtures.GenerateCheckpoints(*out); err != nil {
		fmt.Fprintln(os.Stderr, "refcheckpoints:", err)
		os.Exit(1)
	}
}
