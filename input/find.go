package input

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"qa-shard/internal/format"
)

// Find expands the --input arguments into the run's files, in the run's
// order: arguments in the order given; a folder's files (recursively) and
// a glob's matches sorted by path. A folder contributes the files whose
// names end in .jsonl, .ndjson (either maybe .gz, .zst or .zstd) or
// .parquet, skipping hidden and _-prefixed names (_SUCCESS, _metadata); a
// file named explicitly is read whatever its name. "-" is standard input
// and stands alone.
//
// A file's Name is its path under the argument that found it: the base
// name of a file argument, the path under a folder, the path under a glob's
// leading folders. Names appear in default ids and error records, so they
// should not depend on where the job runs from; when two files would get
// the same name, every file is named by its full path as found instead.
func Find(args []string) ([]File, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("%w: --input is required: JSONL, .jsonl.gz, .jsonl.zst or Parquet files, folders or globs", ErrInput)
	}
	if slices.Contains(args, "-") {
		if len(args) > 1 {
			return nil, fmt.Errorf("%w: --input - (standard input) cannot be combined with other inputs", ErrInput)
		}
		return []File{{Path: "-", Name: "stdin", Size: -1}}, nil
	}
	if f, ok, err := pipe(args); ok || err != nil {
		return []File{f}, err
	}
	var files []File
	for _, arg := range args {
		found, err := expand(arg)
		if err != nil {
			return nil, err
		}
		files = append(files, found...)
	}
	seen := map[string]string{}
	same := map[fileID]string{}
	names := map[string]bool{}
	clash := false
	for _, f := range files {
		abs, _ := filepath.Abs(f.Path)
		if prev, ok := seen[abs]; ok {
			return nil, fmt.Errorf("%w: %s is given twice (as %s and %s): each file is read once", ErrInput, f.Path, prev, f.Path)
		}
		if prev, ok := same[f.id]; ok && f.id != (fileID{}) {
			return nil, fmt.Errorf("%w: %s and %s are the same file (a symbolic or hard link reaches it twice): each file is read once; give it once", ErrInput, prev, f.Path)
		}
		seen[abs], same[f.id] = f.Path, f.Path
		clash = clash || names[f.Name]
		names[f.Name] = true
	}
	if clash {
		for i := range files {
			files[i].Name = filepath.ToSlash(files[i].Path)
		}
	}
	return files, nil
}

// pipe: a lone --input that is a pipe (a FIFO, a shell's <(zcat ...),
// /dev/stdin) is read as a stream, as "-" reads standard input: once,
// without looking ahead, a resume needing the same stream replayed. ok is
// false for any other input.
func pipe(args []string) (File, bool, error) {
	if len(args) != 1 {
		return File{}, false, nil
	}
	st, err := os.Stat(args[0])
	if err != nil || st.Mode()&(fs.ModeNamedPipe|fs.ModeCharDevice) == 0 {
		return File{}, false, nil
	}
	f, err := os.Open(args[0])
	if err != nil {
		return File{}, true, fmt.Errorf("%w: cannot open --input %s: %w", ErrInput, args[0], err)
	}
	return File{Path: "-", Name: args[0], Size: -1, stream: f}, true, nil
}

// expand turns one argument into files.
func expand(arg string) ([]File, error) {
	st, err := os.Stat(arg)
	switch {
	case err == nil && st.IsDir():
		return folder(arg, arg)
	case err == nil:
		f, err := stat(arg, filepath.Base(arg))
		return []File{f}, err
	case !strings.ContainsAny(arg, "*?["):
		return nil, fmt.Errorf("%w: cannot open --input: %w", ErrInput, err)
	}
	matches, err := filepath.Glob(arg)
	if err != nil {
		return nil, fmt.Errorf("%w: --input %s is not a valid pattern: %w", ErrInput, arg, err)
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("%w: --input %s matches no file", ErrInput, arg)
	}
	root := globRoot(arg)
	var files []File
	for _, m := range matches { // Glob sorts them
		st, err := os.Stat(m)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInput, err)
		}
		if st.IsDir() {
			sub, err := folder(m, root)
			if err != nil {
				return nil, err
			}
			files = append(files, sub...)
			continue
		}
		f, err := stat(m, relName(root, m))
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// folder lists the input files under dir, sorted by path, named relative
// to root. A dir that is a symbolic link to a folder is read as that
// folder (the links below it are not followed, as find does not).
func folder(dir, root string) ([]File, error) {
	var files []File
	walk := dir
	if st, err := os.Lstat(dir); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		walk = dir + string(filepath.Separator) // resolved by the kernel: the folder it names
	}
	err := filepath.WalkDir(walk, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if path != walk && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !format.IsInput(name) {
			return nil
		}
		f, err := stat(path, relName(root, path))
		files = append(files, f)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%w: reading folder %s: %w", ErrInput, dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: folder %s holds no input files (names ending in .jsonl, .ndjson, .jsonl.gz, .jsonl.zst or .parquet)", ErrInput, dir)
	}
	return files, nil
}

func stat(path, name string) (File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return File{}, fmt.Errorf("%w: cannot open --input: %w", ErrInput, err)
	}
	if st.Mode()&(fs.ModeNamedPipe|fs.ModeCharDevice) != 0 {
		return File{}, fmt.Errorf("%w: %s is a pipe: a pipe (a FIFO, or a shell's <(...)) is read as a stream, alone: give it as the only --input (or pipe it into --input -)", ErrInput, path)
	}
	if !st.Mode().IsRegular() {
		return File{}, fmt.Errorf("%w: %s is not a regular file", ErrInput, path)
	}
	return File{Path: path, Name: name, Size: st.Size(), ModTime: st.ModTime(), Format: format.Of(path), id: identity(st)}, nil
}

// fileID is a file's identity whatever path reaches it: its device and
// inode.
type fileID struct{ dev, ino uint64 }

// identity is the file's fileID; zero where the system gives none.
func identity(st os.FileInfo) fileID {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(sys.Dev), ino: sys.Ino} // Dev is int32 on some systems
	}
	return fileID{}
}

// globRoot is the folder part of a pattern before its first wildcard.
func globRoot(pattern string) string {
	i := strings.IndexAny(pattern, "*?[")
	return filepath.Dir(pattern[:i] + "x")
}

func relName(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}
