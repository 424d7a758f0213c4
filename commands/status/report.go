package status

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"qa-shard/internal/logs"
)

// writeTable writes the ranks for a person: one line each (its state,
// documents, last checkpoint, where it runs or what to do), then a total
// line, and that the figures are the last checkpoints'; now dates the
// checkpoints.
func writeTable(w io.Writer, all []rankState, now time.Time) {
	count := map[string]int{}
	var docs, errs int64
	for _, s := range all {
		count[s.State]++
		docs += s.Documents
		errs += s.Errors
		line := fmt.Sprintf("rank %d/%d  %-10s  %s documents", s.Rank, s.World, s.State, logs.Thousands(s.Documents))
		if s.Percent != nil {
			line += fmt.Sprintf(" (%.1f%% of its input)", *s.Percent)
		}
		if s.Errors > 0 {
			line += fmt.Sprintf(", %s error records", logs.Thousands(s.Errors))
		}
		if !s.Checkpoint.IsZero() {
			line += fmt.Sprintf("  last checkpoint %s ago", now.Sub(s.Checkpoint).Round(time.Second))
		}
		switch {
		case s.State == "running" && s.Checked:
			line += fmt.Sprintf("  on %s, pid %d", s.Host, s.PID)
		case s.State == "running":
			line += fmt.Sprintf("  on %s, pid %d (per its lock file; not checkable from this host)", s.Host, s.PID)
		case s.State == "stopped":
			line += "  resumable: rerun the same command with --resume"
		}
		if s.Problem != "" {
			line += "  " + s.Problem
		}
		fmt.Fprintf(w, "%s  %s\n", line, s.Output)
	}
	var parts []string
	for _, k := range []string{"complete", "running", "stopped", "missing", "corrupt", "mismatched"} {
		if count[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
		}
	}
	fmt.Fprintf(w, "total: %d of %d ranks complete (%s); %s documents, %s error records\n", count["complete"], len(all), strings.Join(parts, ", "), logs.Thousands(docs), logs.Thousands(errs))
	if slices.ContainsFunc(all, func(s rankState) bool { return !s.Checkpoint.IsZero() }) {
		fmt.Fprintln(w, asOfCheckpoint)
	}
}

// asOfCheckpoint says what the table's figures are: the journals'.
const asOfCheckpoint = "(figures as of each rank's last checkpoint, its time above: a running rank has done up to its --checkpoint-interval more)"

// writeJSON writes one JSON object per rank, then one for the total.
func writeJSON(w io.Writer, all []rankState) error {
	enc := json.NewEncoder(w)
	total := struct {
		Total     bool           `json:"total"`
		Ranks     int            `json:"ranks"`
		States    map[string]int `json:"states"`
		Documents int64          `json:"documents"`
		Errors    int64          `json:"error_records"`
	}{Total: true, Ranks: len(all), States: map[string]int{}}
	for _, s := range all {
		if err := enc.Encode(s); err != nil {
			return err
		}
		total.States[s.State]++
		total.Documents += s.Documents
		total.Errors += s.Errors
	}
	return enc.Encode(total)
}
