package mecab

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"qa-shard/internal/errkind"
)

// ErrMissing marks a dictionary that is not installed where qa-shard
// looks; ErrMismatch one that is not the dictionary the model names.
var (
	ErrMissing  = errkind.NewUser("MeCab dictionary not found")
	ErrMismatch = errkind.NewUser("MeCab dictionary is not the model's")
)

// Known describes a dictionary transformers' MecabTokenizer loads by name
// (mecab_kwargs.mecab_dic): the pip package holding it, what it is, and
// where else it may be installed.
type Known struct {
	Name    string // mecab_dic: "ipadic", "unidic_lite", "unidic"
	Family  string // "ipadic" or "unidic": builds of one family share a tag set
	Package string // the pip package (its module holds DICDIR = <module>/dicdir)
	Module  string
	What    string // for people
	// System are folder names, under MeCab's system dictionary roots,
	// that hold the same dictionary (as checked by Prints).
	System []string
	// Prints are the fingerprints (see Fingerprint) of the builds known
	// to be this dictionary; empty where none could be measured, in which
	// case only the pip package's own folder, or a folder named by the
	// user, is taken as it.
	Prints []Fingerprint
}

// Fingerprint identifies a compiled dictionary by what MeCab reports of
// its system dictionary: lexicon entries, the connection matrix's left
// and right sizes, and the charset. Two builds of one dictionary agree on
// all four; different dictionaries (IPAdic, UniDic of any version, JUMAN)
// differ in the matrix at least.
type Fingerprint struct {
	Entries uint32 `json:"entries"`
	Left    uint32 `json:"left"`
	Right   uint32 `json:"right"`
	Charset string `json:"charset"`
}

func (f Fingerprint) String() string {
	return fmt.Sprintf("%d entries, %dx%d matrix, %s", f.Entries, f.Left, f.Right, f.Charset)
}

// Dictionaries are the dictionaries transformers names, with the
// fingerprints measured (mecab_dictionary_info of the system dictionary).
// IPAdic 2.7.0 is built from mecab-ipadic-2.7.0-20070801 by pip's ipadic
// 1.0.0 (392126 entries, charset written "UTF8": the build transformers
// loads for mecab_dic "ipadic") and by Debian's mecab-ipadic-utf8 (392127
// entries, "UTF-8"); both are taken as it, pip's first where both are;
// Debian's unidic-mecab is UniDic 3.1.1, pip's unidic downloads 3.1.0, so
// it is a UniDic but not the one the model names; unidic_lite is UniDic
// 2.1.2, packaged only by pip (unidic-lite 1.0.8 measured).
var Dictionaries = []Known{
	{Name: "ipadic", Family: "ipadic", Package: "ipadic", Module: "ipadic", What: "IPAdic 2.7.0",
		System: []string{"ipadic-utf8", "ipadic"},
		Prints: []Fingerprint{{392126, 1316, 1316, "UTF8"}, {392127, 1316, 1316, "UTF-8"}}},
	{Name: "unidic_lite", Family: "unidic", Package: "unidic-lite", Module: "unidic_lite", What: "UniDic 2.1.2 (unidic-lite)",
		Prints: []Fingerprint{{756264, 5981, 5981, "UTF8"}}}, // pip's unidic-lite 1.0.8
	{Name: "unidic", Family: "unidic", Package: "unidic", Module: "unidic", What: "UniDic 3.1.0 (pip's unidic, after python -m unidic download)"},
}

// other is a build measured that no mecab_dic name stands for.
type other struct{ what, family string }

// Other fingerprints measured, to name a dictionary that is not the
// model's.
var others = map[Fingerprint]other{
	{879221, 15626, 15388, "UTF-8"}: {"UniDic 3.1.1 (Debian's unidic-mecab)", "unidic"},
}

// KnownDictionary is the entry of Dictionaries called name.
func KnownDictionary(name string) (Known, bool) {
	for _, k := range Dictionaries {
		if k.Name == name {
			return k, true
		}
	}
	return Known{}, false
}

// Print is the fingerprint of a tagger's system dictionary.
func (t *Tagger) Print() Fingerprint {
	for _, d := range t.dicts {
		if d.Type == 0 {
			return Fingerprint{d.Size, d.LSize, d.RSize, strings.ToUpper(d.Charset)}
		}
	}
	return Fingerprint{}
}

// Identify names the dictionary a fingerprint belongs to, and its family
// ("" when it is none qa-shard has measured).
func Identify(f Fingerprint) (what, family string) {
	for _, k := range Dictionaries {
		if slices.Contains(k.Prints, f) {
			return k.What, k.Family
		}
	}
	o := others[f]
	return o.what, o.family
}

// Search says where FindDictionary looks, for error messages and docs.
const Search = "the folder given with --mecab-dicdir or QA_SHARD_MECAB_DICDIR, " +
	"the pip package's dicdir in the Python environments found ($VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, " +
	"the system's site-packages and dist-packages, then python3's own import, which is not asked when the system folder below holds the model's own build), " +
	"and for IPAdic MeCab's system dictionary folders (mecab-config --dicdir, the dicdir of mecabrc, " +
	"/var/lib/mecab/dic, /usr/lib/mecab/dic, /usr/local/lib/mecab/dic, /opt/homebrew/lib/mecab/dic)"

// Location is a dictionary folder found, and how.
type Location struct {
	Dir, How string
	User     bool // named by the user (flag or environment)
}

// FindDictionary looks for the dictionary k in the places Search lists;
// override is the user's folder ("" for none), which wins. python3 is
// asked only when the system folder it would otherwise fall back on does
// not hold a build k lists (its sys.dic header read): where it does, a pip
// package python3 finds would be that same dictionary, and starting
// python3 (through a version manager's shims, often) costs a short run
// more CPU time than its tokenizing.
func FindDictionary(k Known, override string) (Location, error) {
	if override != "" {
		if !isDicDir(override) {
			return Location{}, fmt.Errorf("%w: %s (given for the model's %s) is not a MeCab dictionary folder: it has no sys.dic or dicrc", ErrMissing, override, k.What)
		}
		return Location{Dir: override, How: "given", User: true}, nil
	}
	for _, sp := range sitePackages() {
		if d := filepath.Join(sp, k.Module, "dicdir"); isDicDir(d) {
			return Location{Dir: d, How: "pip package " + k.Package}, nil
		}
	}
	sys, hasSys := systemDictionary(k)
	if hasSys && len(k.Prints) > 0 {
		if f, err := readFingerprint(sys); err == nil && slices.Contains(k.Prints, f) {
			return Location{Dir: sys, How: "system dictionary"}, nil
		}
	}
	if d, ok := pythonDicdir(k.Module); ok {
		return Location{Dir: d, How: "pip package " + k.Package + " (python3)"}, nil
	}
	if hasSys {
		return Location{Dir: sys, How: "system dictionary"}, nil
	}
	return Location{}, fmt.Errorf("%w: the model's tokenizer needs the MeCab dictionary %s (mecab_dic %q) and it is not installed: "+
		"install it with `pip install %s` (as transformers needs it too), or pass its folder with --mecab-dicdir DIR; qa-shard looked in %s",
		ErrMissing, k.What, k.Name, k.Package, Search)
}

// Check refuses a tagger whose dictionary is not k. A build k lists is
// k; a build of another family, or a build of k's family that k does not
// list when the folder was found rather than named by the user, is
// refused; so is an unknown build when k lists any. What it returns names
// the dictionary used when it is not exactly k (a note for people), ""
// when it is k.
func Check(k Known, t *Tagger, loc Location) (string, error) {
	f := t.Print()
	if slices.Contains(k.Prints, f) {
		return "", nil
	}
	what, family := Identify(f)
	switch {
	case what != "" && family == k.Family && loc.User:
		return fmt.Sprintf("%s, given in place of the model's %s (same family; words may differ where the versions do)", what, k.What), nil
	case what != "":
		return "", fmt.Errorf("%w: %s holds %s (%s), but the model's tokenizer was trained with %s (mecab_dic %q): its words would differ; install that one (pip install %s) or pass its folder with --mecab-dicdir",
			ErrMismatch, loc.Dir, what, f, k.What, k.Name, k.Package)
	case len(k.Prints) > 0:
		return "", fmt.Errorf("%w: %s holds a dictionary (%s) that is not %s (%s), which the model's tokenizer was trained with (mecab_dic %q); install it (pip install %s) or pass its folder with --mecab-dicdir",
			ErrMismatch, loc.Dir, f, k.What, k.Prints[0], k.Name, k.Package)
	}
	return k.What + " (identified by its folder: qa-shard has no fingerprint of it to check)", nil
}

// systemDictionary is the first folder of MeCab's system dictionaries
// that holds k under one of its names.
func systemDictionary(k Known) (string, bool) {
	if len(k.System) == 0 {
		return "", false
	}
	for _, root := range systemRoots() {
		for _, name := range k.System {
			if d := filepath.Join(root, name); isDicDir(d) {
				return d, true
			}
		}
	}
	return "", false
}

// sysDicHeader is the size of the header of a compiled MeCab dictionary
// (dictionary.cpp of MeCab 0.996): ten 32-bit little-endian words (magic,
// version, type, lexicon size, left and right sizes, then the sizes of
// the sections) and the charset, NUL-padded to 32 bytes.
const sysDicHeader = 10*4 + 32

// sysDicMagic, xor the file's size, is the first word of a sys.dic.
const sysDicMagic = 0xef718f77

// sysDicVersion is the only version of the format MeCab 0.99x reads.
const sysDicVersion = 102

// readFingerprint reads the fingerprint of the system dictionary in dir
// off the header of its sys.dic, without loading it: the numbers
// mecab_dictionary_info reports once MeCab has (Tagger.Print).
func readFingerprint(dir string) (Fingerprint, error) {
	f, err := os.Open(filepath.Join(dir, "sys.dic"))
	if err != nil {
		return Fingerprint{}, fmt.Errorf("read the dictionary header: %w", err)
	}
	defer f.Close()
	var h [sysDicHeader]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return Fingerprint{}, fmt.Errorf("read the dictionary header of %s: %w", f.Name(), err)
	}
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(h[4*i:]) }
	st, err := f.Stat()
	if err != nil {
		return Fingerprint{}, fmt.Errorf("read the dictionary header: %w", err)
	}
	if int64(word(0)^sysDicMagic) != st.Size() {
		return Fingerprint{}, fmt.Errorf("%s is not a compiled MeCab dictionary: its magic number does not match its size", f.Name())
	}
	if v := word(1); v != sysDicVersion {
		return Fingerprint{}, fmt.Errorf("%s is not a MeCab dictionary of version %d (its header says %d)", f.Name(), sysDicVersion, v)
	}
	if t := word(2); t != 0 {
		return Fingerprint{}, fmt.Errorf("%s is not a system dictionary (its type is %d)", f.Name(), t)
	}
	charset, _, _ := strings.Cut(string(h[40:]), "\x00")
	return Fingerprint{Entries: word(3), Left: word(4), Right: word(5), Charset: strings.ToUpper(charset)}, nil
}

// SystemFolders are the folders of MeCab's system dictionaries called
// name (as Debian names them: ipadic-utf8, unidic, juman-utf8) that exist.
func SystemFolders(name string) []string {
	var out []string
	for _, root := range systemRoots() {
		if d := filepath.Join(root, name); isDicDir(d) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func isDicDir(d string) bool {
	for _, f := range []string{"sys.dic", "dicrc"} {
		if st, err := os.Stat(filepath.Join(d, f)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// The usual install prefixes of Python, MeCab's system dictionaries and
// its mecabrc (variables for the tests, which search a machine of their
// own).
var (
	pythonPrefixes = []string{"/usr/local", "/usr", "/opt/homebrew"}
	dicRoots       = []string{"/var/lib/mecab/dic", "/usr/lib/mecab/dic", "/usr/lib64/mecab/dic", "/usr/local/lib/mecab/dic", "/opt/homebrew/lib/mecab/dic"}
	dicRootGlobs   = []string{"/usr/lib/*-linux-gnu/mecab/dic"}
	systemRCFiles  = []string{"/etc/mecabrc", "/usr/local/etc/mecabrc", "/opt/homebrew/etc/mecabrc"}
)

// sitePackages are the site-packages and dist-packages folders of the
// Python environments a user may have installed a pip dictionary into.
func sitePackages() []string {
	var prefixes []string
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if p := os.Getenv(env); p != "" {
			prefixes = append(prefixes, p)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		prefixes = append(prefixes, filepath.Join(home, ".local"))
	}
	prefixes = append(prefixes, pythonPrefixes...)
	var out []string
	for _, p := range prefixes {
		for _, pat := range []string{"lib/python3*/site-packages", "lib/python3*/dist-packages", "lib/python3/dist-packages"} {
			m, _ := filepath.Glob(filepath.Join(p, pat))
			out = append(out, m...)
		}
	}
	return out
}

// pythonDicdir asks python3 for module.DICDIR, as transformers finds it.
func pythonDicdir(module string) (string, bool) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return "", false
	}
	cmd := exec.Command(py, "-c", "import "+module+"; print("+module+".DICDIR)")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	d := strings.TrimSpace(string(out))
	return d, isDicDir(d)
}

// systemRoots are the folders that hold MeCab's system dictionaries, one
// folder each: mecab-config's, the parent of mecabrc's dicdir, and the
// usual install prefixes.
func systemRoots() []string {
	var roots []string
	if mc, err := exec.LookPath("mecab-config"); err == nil {
		if out, err := exec.Command(mc, "--dicdir").Output(); err == nil {
			roots = append(roots, strings.TrimSpace(string(out)))
		}
	}
	for _, rc := range rcFiles() {
		if d := rcDicdir(rc); d != "" {
			roots = append(roots, filepath.Dir(d))
		}
	}
	roots = append(roots, dicRoots...)
	for _, pat := range dicRootGlobs {
		m, _ := filepath.Glob(pat)
		roots = append(roots, m...)
	}
	return roots
}

// rcFiles are the mecabrc files MeCab itself would read, in its order
// ($MECABRC, ~/.mecabrc, then the usual system ones), those that exist.
func rcFiles() []string {
	var c []string
	if p := os.Getenv("MECABRC"); p != "" {
		c = append(c, p)
	}
	if home, err := os.UserHomeDir(); err == nil {
		c = append(c, filepath.Join(home, ".mecabrc"))
	}
	c = append(c, systemRCFiles...)
	var out []string
	for _, p := range c {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

// rcDicdir is the dicdir a mecabrc sets.
func rcDicdir(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(raw), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "dicdir" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Args are the options transformers passes MeCab for a dictionary
// folder: -d DIR -r DIR/mecabrc, then the model's mecab_option. A folder
// without a mecabrc (a system dictionary) gets an empty one: MeCab needs
// one to read, and only the dictionary's own dicrc matters.
func Args(dir string, option []string) []string {
	rc := filepath.Join(dir, "mecabrc")
	if _, err := os.Stat(rc); errors.Is(err, fs.ErrNotExist) {
		rc = os.DevNull
	}
	return append([]string{"-d", dir, "-r", rc}, option...)
}
