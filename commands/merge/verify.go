package merge

import (
	"fmt"

	"qa-shard/output"
	"qa-shard/output/logits"
)

// verify checks, before anything is written, every file the merge will
// copy against its rank's journal: the answers (a file's records; a
// Parquet folder's parts, each of the rank's run, with the digest the
// journal records) and, when the logits are merged, the logits parts
// (each of the rank's run, with the journal's digest of their sizes and
// footers). A mismatch names the rank, the file and what differs, and is
// the user's to fix (exit 2): the rank's outputs changed after its run.
func (p *plan) verify() error {
	for _, r := range p.ranks {
		if err := output.VerifyAnswers(r.path, r.state); err != nil {
			return fmt.Errorf("%s cannot be merged: %w", r.name(), err)
		}
		if p.opt.Logits == "" {
			continue
		}
		dir := logitsFolder(p.opt.Logits, r)
		if err := logits.Compare(dir, r.state.LogitsParts, r.state.LogitsDigest, r.state.Run); err != nil {
			return fmt.Errorf("%s cannot be merged: its logits: %w; rerun that rank with --overwrite, or put its own parts back", r.name(), err)
		}
	}
	return nil
}
