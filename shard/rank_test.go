package shard

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDetectRank(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rank, world int
		env         func(string) (string, bool)
		want        Rank
		bad         bool
	}{
		{"single", -1, 0, env(), Rank{0, 1, "single process"}, false},
		{"flags", 2, 4, env("SLURM_PROCID", "1", "SLURM_NTASKS", "4"), Rank{2, 4, "flags"}, false},
		{"slurm", -1, 0, env("SLURM_PROCID", "3", "SLURM_NTASKS", "4"), Rank{3, 4, "slurm"}, false},
		{"slurm array", -1, 0, env("SLURM_PROCID", "1", "SLURM_NTASKS", "2", "SLURM_ARRAY_TASK_ID", "7", "SLURM_ARRAY_TASK_MIN", "5", "SLURM_ARRAY_TASK_COUNT", "4"), Rank{5, 8, "slurm array"}, false},
		{"slurm array from max", -1, 0, env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_MAX", "9"), Rank{2, 10, "slurm array"}, false},
		{"torchrun", -1, 0, env("RANK", "5", "WORLD_SIZE", "8"), Rank{5, 8, "torchrun"}, false},
		{"kubernetes", -1, 6, env("JOB_COMPLETION_INDEX", "4"), Rank{4, 6, "kubernetes"}, false},
		{"kubernetes without world", -1, 0, env("JOB_COMPLETION_INDEX", "4"), Rank{}, true},
		{"rank beyond world", 4, 4, env(), Rank{}, true},
		{"world flag contradicts slurm", -1, 8, env("SLURM_PROCID", "1", "SLURM_NTASKS", "4"), Rank{}, true},
		{"bad number", -1, 0, env("SLURM_PROCID", "x", "SLURM_NTASKS", "4"), Rank{}, true},
		{"world without rank", -1, 3, env(), Rank{}, true},
		{"sparse array", -1, 0, env("SLURM_ARRAY_TASK_ID", "9", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_COUNT", "5"), Rank{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DetectRank(tc.rank, tc.world, tc.env)
			if tc.bad {
				if !errors.Is(err, ErrRank) {
					t.Fatalf("got %+v, %v; want ErrRank", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestByteBlockCoversOnce: for any world size, including more ranks than
// documents, the blocks tile the documents exactly once, and their byte
// sizes differ by at most the longest line.
func TestByteBlockCoversOnce(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	longest := 0
	for i := range 300 {
		l := `{"id": ` + strconv.Itoa(i) + `, "context": "` + strings.Repeat("w ", 1+(i*i)%400) + `"}`
		if i%17 == 0 {
			l = "   " // blank lines get no Seq
		}
		lines = append(lines, l)
		longest = max(longest, len(l)+1)
	}
	text := "\ufeff" + strings.Join(lines, "\n") // BOM, no final newline
	path := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := CountLines(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{1, 2, 3, 16, 500} {
		var next int64
		var sizes []int
		for r := range w {
			first, end, err := ByteBlock(path, Rank{Rank: r, World: w})
			if err != nil || first != next || end < first {
				t.Fatalf("w=%d rank %d: [%d,%d) after %d (%v)", w, r, first, end, next, err)
			}
			next = end
			sizes = append(sizes, blockBytes(lines, first, end))
		}
		if next != n {
			t.Fatalf("w=%d: blocks cover %d documents, the file has %d", w, next, n)
		}
		if w <= 3 && slices.Max(sizes)-slices.Min(sizes) > 2*longest {
			t.Errorf("w=%d: block sizes %v differ by more than two lines", w, sizes)
		}
	}
}

// blockBytes sums the lengths of documents [first, end) (blank lines skipped).
func blockBytes(lines []string, first, end int64) int {
	seq, total := int64(0), 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if seq >= first && seq < end {
			total += len(l) + 1
		}
		seq++
	}
	return total
}

func TestRankPath(t *testing.T) {
	r := Rank{Rank: 3, World: 16}
	for in, want := range map[string]string{
		"answers.jsonl": "answers.rank-00003-of-00016.jsonl",
		"out/logits":    "out/logits.rank-00003-of-00016",
		"out.d/answers": "out.d/answers.rank-00003-of-00016",
		"-":             "-",
	} {
		if got := RankPath(in, r); got != want {
			t.Errorf("RankPath(%q) = %q, want %q", in, got, want)
		}
	}
	if got := RankPath("answers.jsonl", Rank{World: 1}); got != "answers.jsonl" {
		t.Errorf("single process path changed: %q", got)
	}
}
