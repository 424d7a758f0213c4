package input

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"qa-shard/internal/format"
)

// Output is a path the run writes, with the flag that names it (for
// messages): --output, --logits.
type Output struct{ Flag, Path string }

// checkOutputs refuses an output that is, or would become, an input: one
// of the input files found for args, or a file an input folder among args
// would list on a rerun (the rerun would then read answers as documents).
// "" and "-" (standard output) are never inputs. An output that is a
// folder (Parquet answers, logits) may not be an input folder either.
func checkOutputs(args []string, files []File, outputs ...Output) error {
	for _, out := range outputs {
		if out.Path == "" || out.Path == "-" {
			continue
		}
		abs, _ := filepath.Abs(out.Path)
		for _, f := range files {
			if p, _ := filepath.Abs(f.Path); p == abs || strings.HasPrefix(p, abs+string(filepath.Separator)) {
				return fmt.Errorf("%w: %s %s is also an input (%s): write it outside the input folders", ErrInput, out.Flag, out.Path, f.Path)
			}
		}
		for _, arg := range args {
			dir, _ := filepath.Abs(arg)
			if st, err := os.Stat(arg); err == nil && st.IsDir() && strings.HasPrefix(abs, dir+string(filepath.Separator)) && format.IsInput(filepath.Base(out.Path)) {
				return fmt.Errorf("%w: %s %s is inside the input folder %s, where a rerun would read it as input: write it elsewhere", ErrInput, out.Flag, out.Path, arg)
			}
		}
	}
	return nil
}
