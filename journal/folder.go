package journal

import "path/filepath"

// LogitsFolder is where the logits of the run whose answers are at
// output are, as its journal records them (State.Logits: relative to the
// journal's folder, or absolute); "" when it records none (no logits, or
// a journal written before it recorded the folder).
func (s State) LogitsFolder(output string) string {
	switch {
	case s.Logits == "":
		return ""
	case filepath.IsAbs(s.Logits):
		return s.Logits
	}
	return filepath.Join(filepath.Dir(output), s.Logits)
}
