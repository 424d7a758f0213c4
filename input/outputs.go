package input

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"qa-shard/internal/format"
)

// checkOutputs refuses an output that is, or would become, an input: one
// of the input files found for args, or a file an input folder among args
// would list on a rerun (the rerun would then read answers as documents).
// "" and "-" (standard output) are never inputs.
func checkOutputs(args []string, files []File, outputs ...string) error {
	for _, out := range outputs {
		if out == "" || out == "-" {
			continue
		}
		abs, _ := filepath.Abs(out)
		for _, f := range files {
			if p, _ := filepath.Abs(f.Path); p == abs || strings.HasPrefix(p, abs+string(filepath.Separator)) {
				return fmt.Errorf("%w: --output %s is also an input (%s): write it outside the input folders", ErrInput, out, f.Path)
			}
		}
		for _, arg := range args {
			dir, _ := filepath.Abs(arg)
			if st, err := os.Stat(arg); err == nil && st.IsDir() && strings.HasPrefix(abs, dir+string(filepath.Separator)) && format.IsInput(filepath.Base(out)) {
				return fmt.Errorf("%w: --output %s is inside the input folder %s, where a rerun would read it as input: write it elsewhere", ErrInput, out, arg)
			}
		}
	}
	return nil
}
