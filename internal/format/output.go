package format

import (
	"fmt"
	"path/filepath"
	"strings"
)

// OutputEndings are the ends of the names an answers output may have
// (case aside), each naming its format: a run and a merge write the
// format the name says, so a name that says none is refused rather than
// written as JSONL under a name that promises something else.
var OutputEndings = []string{".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz", ".jsonl.zst", ".ndjson.zst", ".jsonl.zstd", ".ndjson.zstd", ".parquet"}

// ForOutput is the format an answers output named path is written in, or
// an error naming the accepted endings when its name says none of them
// (a.jsonl.bz2, a.csv, a.json, a name without an extension).
func ForOutput(path string) (Format, error) {
	name := strings.ToLower(filepath.Base(path))
	for _, e := range OutputEndings {
		if strings.HasSuffix(name, e) && len(name) > len(e) {
			return Of(path), nil
		}
	}
	return JSONL, fmt.Errorf("%s: the name's ending chooses the answers' format, and it names none that qa-shard writes; use one of %s", path, strings.Join(OutputEndings, ", "))
}
