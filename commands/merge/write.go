package merge

import (
	"errors"
	"fmt"
	"io"
	"os"

	"qa-shard/internal/format"
	"qa-shard/internal/partfolder"
	"qa-shard/internal/record"
	"qa-shard/output"
)

// write merges what prepare checked. It first checks every file it will
// copy against its rank's journal, then settles what a stopped merge into
// the same outputs left (see replace.go) and checks the outputs again,
// then writes each output under a temporary name and renames them into
// place. A failure at any point removes what this merge wrote and puts
// back what it set aside, leaving the ranks and the outputs as they were.
func (p *plan) write() (res result, err error) {
	if err := p.verify(); err != nil {
		return result{}, err
	}
	targets := []string{p.opt.Output}
	if p.opt.Logits != "" {
		targets = []string{p.opt.Logits, p.opt.Output} // the answers last: in place, they say the merge is done
	}
	for _, t := range targets {
		if err := p.settle(t); err != nil {
			return result{}, err
		}
	}
	if err := p.checkTargets(); err != nil {
		return result{}, err
	}
	res = result{Ranks: len(p.ranks), From: p.from, To: p.to}
	for _, r := range p.ranks {
		res.Documents += r.state.Done
		if p.opt.Logits == "" {
			res.LogitsLeft += r.state.LogitsParts
		}
	}
	var reps []*replacement
	defer func() {
		for _, r := range reps {
			if err != nil && !r.placed {
				_ = os.RemoveAll(r.temp)
			}
		}
	}()
	for _, t := range targets {
		r := &replacement{target: t, temp: tempName(t, writingTag)}
		reps = append(reps, r)
		if t == p.opt.Logits {
			res.LogitsParts, err = p.linkParts(r.temp, func(rk rankFile) (string, int) { return logitsFolder(p.opt.Logits, rk), rk.state.LogitsParts })
		} else {
			res.AnswerParts, err = p.writeAnswers(r.temp)
		}
		if err != nil {
			return result{}, err
		}
	}
	if err := p.place(reps); err != nil {
		return result{}, err
	}
	if err := p.dropReplaced(reps); err != nil {
		res.Leftover = err.Error()
	}
	return res, nil
}

// writeAnswers writes the merged answers at temp: the ranks' parts linked
// when both are Parquet, else through the writer of the merged format
// (text copied, or records replayed into Parquet), one unit per rank. It
// returns the parts of a Parquet folder.
func (p *plan) writeAnswers(temp string) (int, error) {
	if p.from == format.Parquet {
		return p.linkParts(temp, func(r rankFile) (string, int) { return r.path, r.state.AnswerParts })
	}
	if err := p.step("create " + temp); err != nil {
		return 0, err
	}
	w, err := output.CreateWhole(temp, p.to, p.columns)
	if err != nil {
		return 0, fmt.Errorf("creating the merged answers: %w", err)
	}
	parts := 0
	for _, r := range p.ranks {
		if err := p.step(fmt.Sprintf("copy rank %d's answers", r.shard.Rank)); err != nil {
			w.Abort()
			return 0, err
		}
		if err := p.copyRank(w, r); err != nil {
			w.Abort()
			return 0, fmt.Errorf("copying %s into the merged answers: %w", r.path, err)
		}
		if p.to == format.Parquet && r.state.Records > 0 {
			parts++
		}
	}
	if err := p.step("sync " + temp); err != nil {
		w.Abort()
		return 0, err
	}
	if err := w.Close(); err != nil {
		w.Abort()
		return 0, fmt.Errorf("writing the merged answers: %w", err)
	}
	return parts, nil
}

// copyRank appends rank r's answers to w, and seals them as one unit.
func (p *plan) copyRank(w *output.Whole, r rankFile) error {
	if p.to == format.Parquet {
		text, err := output.OpenText(r.path)
		if err != nil {
			return err
		}
		defer text.Close()
		if err := record.Replay(text, p.columns.Keep, w); err != nil {
			return err
		}
		return w.Seal()
	}
	f, err := os.Open(r.path)
	if err != nil {
		return err
	}
	defer f.Close()
	// Only what the journal vouches for: its length was checked.
	if err := w.CopyText(io.LimitReader(f, r.state.Bytes), p.from); err != nil {
		return err
	}
	return w.Seal()
}

// linkParts fills the new folder temp with every rank's parts (from src:
// the rank's folder and how many sealed parts it has), in order, and
// returns how many there are. A part is a new name for the rank's file (a
// hard link), or where the file system refuses one a copy into a new
// file; never a file opened that existed before.
func (p *plan) linkParts(temp string, src func(rankFile) (string, int)) (int, error) {
	if err := p.step("create " + temp); err != nil {
		return 0, err
	}
	if err := os.Mkdir(temp, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for _, r := range p.ranks {
		dir, count := src(r)
		for i := range count {
			from, to := partfolder.Path(dir, i), partfolder.Path(temp, n)
			if err := p.step(fmt.Sprintf("link part %d", n)); err != nil {
				return n, err
			}
			if err := linkOrCopy(from, to); err != nil {
				return n, fmt.Errorf("merging %s: %w", from, err)
			}
			n++
		}
	}
	if err := p.step("sync " + temp); err != nil {
		return n, err
	}
	return n, partfolder.Dir(temp).Sync()
}

// link is os.Link; tests make it fail to take the copy.
var link = os.Link

// linkOrCopy makes to, a name that does not exist, hold from's bytes.
func linkOrCopy(from, to string) error {
	if link(from, to) == nil {
		return nil
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return errors.Join(out.Sync(), out.Close())
}
