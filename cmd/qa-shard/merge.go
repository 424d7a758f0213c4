package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"qa-shard/journal"
	"qa-shard/logits"
	"qa-shard/shard"
)

// mergeCmd combines the outputs of the ranks of a split run into the file
// a single process would have written.
func mergeCmd(args []string) int {
	fs := flag.NewFlagSet("qa-shard merge", flag.ContinueOnError)
	output := fs.String("output", "", "merged answers file")
	lg := fs.String("logits", "", "also merge the ranks' logits folders (<this>.rank-RRRRR-of-WWWWW) into this folder")
	overwrite := fs.Bool("overwrite", false, "replace an existing merged output")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: qa-shard merge --output FILE [--logits DIR] RANK_FILES...\n\nRANK_FILES are the answers.rank-RRRRR-of-WWWWW.jsonl files of one run, in any order.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *output == "" || fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "qa-shard merge: --output FILE and at least one rank file are required")
		return exitUsage
	}
	if err := merge(*output, *lg, *overwrite, fs.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard merge: %v\n", err)
		return exitUsage
	}
	return exitOK
}

type rankFile struct {
	path  string
	state journal.State
	shard journal.Shard
}

func merge(output, lg string, overwrite bool, paths []string) error {
	ranks, err := readRanks(paths)
	if err != nil {
		return err
	}
	if err := checkRanks(ranks); err != nil {
		return err
	}
	if _, err := os.Stat(output); err == nil && !overwrite {
		return fmt.Errorf("%s already exists: add --overwrite to replace it", output)
	}
	if err := concat(output, ranks); err != nil {
		return err
	}
	last := ranks[len(ranks)-1].shard
	fmt.Fprintf(os.Stderr, "qa-shard merge: %d ranks, documents 0-%d, written to %s\n", len(ranks), last.End-1, output)
	if lg != "" {
		return mergeLogits(lg, ranks)
	}
	return nil
}

func readRanks(paths []string) ([]rankFile, error) {
	var ranks []rankFile
	for _, p := range paths {
		st, err := journal.Read(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (merge needs the journal each rank writes beside its output)", p, err)
		}
		if st.Fingerprint.Shard == "" {
			return nil, fmt.Errorf("%s was written by a single process, not a rank: it needs no merge", p)
		}
		sh, err := journal.ParseShard(st.Fingerprint.Shard)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		ranks = append(ranks, rankFile{path: p, state: st, shard: sh})
	}
	slices.SortFunc(ranks, func(a, b rankFile) int { return a.shard.Rank - b.shard.Rank })
	return ranks, nil
}

// checkRanks proves the ranks form one run that covers the corpus once:
// the same inputs and settings, every rank present and complete, and
// blocks that tile the documents without gap or overlap.
func checkRanks(ranks []rankFile) error {
	world := ranks[0].shard.World
	ref := ranks[0].state.Fingerprint
	var problems []string
	have := map[int]rankFile{}
	for _, r := range ranks {
		fp := r.state.Fingerprint
		switch {
		case r.shard.World != world:
			problems = append(problems, fmt.Sprintf("%s is rank %d of %d, but %s is of %d", r.path, r.shard.Rank, r.shard.World, ranks[0].path, world))
		case fp.Input != ref.Input || fp.Model != ref.Model || fp.Settings != ref.Settings || fp.Questions != ref.Questions:
			problems = append(problems, fmt.Sprintf("%s ran with a different %s than %s", r.path, differing(fp, ref), ranks[0].path))
		}
		if prev, dup := have[r.shard.Rank]; dup {
			problems = append(problems, fmt.Sprintf("rank %d given twice: %s and %s", r.shard.Rank, prev.path, r.path))
		}
		have[r.shard.Rank] = r
		if !r.state.Complete || r.state.Done != r.shard.End {
			problems = append(problems, fmt.Sprintf("rank %d (%s) is incomplete: documents %d-%d are saved of %d-%d; rerun it with --resume",
				r.shard.Rank, r.path, r.shard.First, r.state.Done-1, r.shard.First, r.shard.End-1))
		}
		if st, err := os.Stat(r.path); err != nil || st.Size() != r.state.Bytes {
			problems = append(problems, fmt.Sprintf("%s does not have the %d bytes its journal records: it was changed after the run", r.path, r.state.Bytes))
		}
	}
	next := int64(0)
	for rank := range world {
		r, ok := have[rank]
		if !ok {
			problems = append(problems, fmt.Sprintf("rank %d of %d is missing (%s, documents from %d)", rank, world,
				shard.RankPath("answers.jsonl", shard.Rank{Rank: rank, World: world}), next))
			continue
		}
		if r.shard.First != next {
			problems = append(problems, fmt.Sprintf("rank %d starts at document %d, expected %d: the ranks split different corpora", rank, r.shard.First, next))
		}
		next = r.shard.End
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n  "))
	}
	return nil
}

func differing(a, b journal.Fingerprint) string {
	var d []string
	for _, c := range [][3]string{{"input", a.Input, b.Input}, {"model", a.Model, b.Model}, {"settings", a.Settings, b.Settings}, {"questions", a.Questions, b.Questions}} {
		if c[1] != c[2] {
			d = append(d, c[0])
		}
	}
	return strings.Join(d, " and ")
}

// concat writes the rank files in rank order under a temporary name and
// renames it when complete and synced.
func concat(output string, ranks []rankFile) error {
	tmp := output + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	for _, r := range ranks {
		in, err := os.Open(r.path)
		if err != nil {
			f.Close()
			return err
		}
		_, err = io.Copy(f, in)
		in.Close()
		if err != nil {
			f.Close()
			return fmt.Errorf("copying %s: %w", r.path, err)
		}
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return err
	}
	return os.Rename(tmp, output)
}

// mergeLogits links (or copies) every rank's parts, in order, into dir.
func mergeLogits(dir string, ranks []rankFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n := 0
	for _, r := range ranks {
		src := shard.RankPath(dir, shard.Rank{Rank: r.shard.Rank, World: r.shard.World})
		for i := range r.state.LogitsParts {
			from, to := logits.PartPath(src, i), logits.PartPath(dir, n)
			if err := os.Link(from, to); err != nil {
				if err := copyFile(from, to); err != nil {
					return fmt.Errorf("merging logits: %w", err)
				}
			}
			n++
		}
	}
	fmt.Fprintf(os.Stderr, "qa-shard merge: %d logits parts in %s\n", n, filepath.Clean(dir))
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
