package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Read loads a journal without taking it over (for merge and status).
func Read(outputPath string) (State, error) {
	path := Path(outputPath)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, fmt.Errorf("%w: %s does not exist", ErrNoJournal, path)
	}
	if err != nil {
		return State{}, fmt.Errorf("journal: reading %s: %w", path, err)
	}
	return decode(path, b)
}
