package filelock

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Seen is what Inspect finds of a lock, without taking it.
type Seen struct {
	// Exists: the lock file is there. A run removes it when it ends
	// normally; one that was killed leaves it behind, unlocked.
	Exists bool
	// Holder is who last wrote the lock file (zero when it is empty).
	Holder Holder
	// Checked: this host can see whether the lock is held (the holder
	// recorded this host's name). A holder on another host of a shared
	// file system holds its lock there, out of this kernel's sight.
	Checked bool
	// Held: the lock is held now (meaningful when Checked).
	Held bool
}

// Inspect reports on target's lock for status reports that may run every
// minute while a job writes: it never takes the lock, not even for an
// instant, since that could refuse a run starting at the same moment. It
// reads the lock file and, for a holder on this host, the kernel's list
// of flock locks (/proc/locks) for the lock file's inode.
func Inspect(target string) (Seen, error) {
	path := Path(target)
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Seen{}, nil
	}
	if err != nil {
		return Seen{}, fmt.Errorf("filelock: %w", err)
	}
	s := Seen{Exists: true}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &s.Holder) // an empty or partial file: no holder known
	}
	host, _ := os.Hostname()
	if s.Holder.Host != "" && s.Holder.Host != host {
		return s, nil
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return s, nil
	}
	held, err := flockHeld(sys.Dev, sys.Ino)
	if err != nil {
		return s, err
	}
	s.Checked, s.Held = true, held
	return s, nil
}

// flockHeld says whether /proc/locks lists a FLOCK lock on the inode ino of
// device dev (written there as major:minor:inode, the numbers of the device
// in hexadecimal).
func flockHeld(dev, ino uint64) (bool, error) {
	f, err := os.Open("/proc/locks")
	if err != nil {
		return false, fmt.Errorf("filelock: reading the kernel's locks: %w", err)
	}
	defer f.Close()
	major, minor := (dev>>8)&0xfff|(dev>>32)&^0xfff, dev&0xff|(dev>>12)&^0xff
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, ino)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a blocked
		// waiter's line has "->" after the number.
		if len(fields) > 1 && fields[1] == "->" {
			continue
		}
		if len(fields) >= 6 && fields[1] == "FLOCK" && fields[5] == want {
			if _, err := strconv.Atoi(fields[4]); err == nil {
				return true, nil
			}
		}
	}
	return false, sc.Err()
}
