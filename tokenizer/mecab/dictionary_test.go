package mecab

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/testing/testenv"
)

// writeDictionary writes a folder that passes for a compiled dictionary
// of fingerprint f: a dicrc and a sys.dic of that header (and some bytes
// after it, as a real one has).
func writeDictionary(t *testing.T, dir string, f Fingerprint) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, sysDicHeader+100)
	for i, w := range []uint32{uint32(len(b)) ^ sysDicMagic, sysDicVersion, 0, f.Entries, f.Left, f.Right} {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	copy(b[40:], f.Charset)
	for name, data := range map[string][]byte{"sys.dic": b, "dicrc": []byte("cost-factor = 800\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// searchEnv confines FindDictionary to a temporary machine: no Python
// environment, no mecab-config, no usual install prefix, a mecabrc whose dicdir's
// parent is the first system root, and a python3 that records being run
// and answers answer ("" for no package). It returns the system root and
// the file python3 writes when it runs.
func searchEnv(t *testing.T, answer string) (root, ran string) {
	t.Helper()
	tmp := t.TempDir()
	root, ran = filepath.Join(tmp, "dic"), filepath.Join(tmp, "python3-ran")
	bin := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho run > " + ran + "\n"
	if answer != "" {
		script += "echo " + answer + "\n"
	} else {
		script += "exit 1\n"
	}
	if err := os.WriteFile(filepath.Join(bin, "python3"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(tmp, "mecabrc")
	if err := os.WriteFile(rc, []byte("dicdir = "+filepath.Join(root, "ipadic-utf8")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv("HOME", tmp)
	t.Setenv("MECABRC", rc)
	t.Setenv("VIRTUAL_ENV", "")
	t.Setenv("CONDA_PREFIX", "")
	saved := [][]string{pythonPrefixes, dicRoots, dicRootGlobs, systemRCFiles}
	pythonPrefixes, dicRoots, dicRootGlobs, systemRCFiles = nil, nil, nil, nil
	t.Cleanup(func() { pythonPrefixes, dicRoots, dicRootGlobs, systemRCFiles = saved[0], saved[1], saved[2], saved[3] })
	return root, ran
}

// TestFindDictionaryPrecedence: the places FindDictionary looks keep
// their order, and python3 is started only when the system folder does
// not already hold the model's build.
func TestFindDictionaryPrecedence(t *testing.T) {
	k, _ := KnownDictionary("ipadic")
	other := Fingerprint{392127, 1316, 1316, "EUC-JP"} // IPAdic built for another charset: not k
	cases := []struct {
		name      string
		system    *Fingerprint // the system folder's build, nil for none
		pip       bool         // python3 finds pip's package
		override  bool
		wantHow   string
		wantSys   bool // the system folder is taken
		wantAsked bool // python3 was started
	}{
		{name: "system holds the model's build", system: &k.Prints[0], pip: true, wantHow: "system dictionary", wantSys: true},
		{name: "system holds another build, pip's wins", system: &other, pip: true, wantHow: "(python3)", wantAsked: true},
		{name: "system holds another build, no pip", system: &other, wantHow: "system dictionary", wantSys: true, wantAsked: true},
		{name: "no system folder, pip's", pip: true, wantHow: "(python3)", wantAsked: true},
		{name: "given folder", system: &k.Prints[0], pip: true, override: true, wantHow: "given"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pipDir := filepath.Join(t.TempDir(), "ipadic", "dicdir")
			writeDictionary(t, pipDir, k.Prints[0])
			answer := ""
			if c.pip {
				answer = pipDir
			}
			root, ran := searchEnv(t, answer)
			sysDir := filepath.Join(root, "ipadic-utf8")
			if c.system != nil {
				writeDictionary(t, sysDir, *c.system)
			}
			override := ""
			if c.override {
				override = filepath.Join(t.TempDir(), "mine")
				writeDictionary(t, override, k.Prints[0])
			}
			loc, err := FindDictionary(k, override)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(loc.How, c.wantHow) {
				t.Errorf("found %s (%s), want it found as %q", loc.Dir, loc.How, c.wantHow)
			}
			if (loc.Dir == sysDir) != c.wantSys {
				t.Errorf("found %s, system folder %s taken: %v, want %v", loc.Dir, sysDir, loc.Dir == sysDir, c.wantSys)
			}
			if c.override && loc.Dir != override {
				t.Errorf("found %s, want the given %s", loc.Dir, override)
			}
			_, err = os.Stat(ran)
			if asked := err == nil; asked != c.wantAsked {
				t.Errorf("python3 started: %v, want %v", asked, c.wantAsked)
			}
		})
	}
}

// TestFindDictionaryMissing: with nothing installed, the error names the
// package to install after asking python3.
func TestFindDictionaryMissing(t *testing.T) {
	_, ran := searchEnv(t, "")
	k, _ := KnownDictionary("ipadic")
	_, err := FindDictionary(k, "")
	if err == nil || !strings.Contains(err.Error(), "pip install ipadic") {
		t.Fatalf("err = %v, want it to name pip install ipadic", err)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Errorf("python3 was not asked before giving up: %v", err)
	}
}

func TestReadFingerprintRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	writeDictionary(t, dir, Fingerprint{1, 2, 3, "UTF-8"})
	f, err := readFingerprint(dir)
	if err != nil || f != (Fingerprint{1, 2, 3, "UTF-8"}) {
		t.Fatalf("ReadFingerprint = %v, %v; want 1 entries, 2x3, UTF-8", f, err)
	}
	// One byte more: the magic number no longer matches the size.
	sys := filepath.Join(dir, "sys.dic")
	b, _ := os.ReadFile(sys)
	if err := os.WriteFile(sys, append(b, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := readFingerprint(dir); err == nil {
		t.Errorf("ReadFingerprint of a file of the wrong size = %v, want an error", f)
	}
	if err := os.WriteFile(sys, []byte("short"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := readFingerprint(dir); err == nil {
		t.Errorf("ReadFingerprint of a 5-byte file = %v, want an error", f)
	}
}

// TestReadFingerprintMatchesMecab: the header read of every system
// dictionary installed (make deps installs IPAdic and UniDic) is what
// libmecab reports once it has loaded it.
func TestReadFingerprintMatchesMecab(t *testing.T) {
	lib, err := Load("")
	if err != nil {
		// mecabtest, which says this, imports this package.
		testenv.Need(t, testenv.Absent("libmecab (MeCab's C library)",
			"install Debian's libmecab2 (`make deps` as root installs every system package the tests use)", nil))
	}
	seen := 0
	for _, name := range []string{"ipadic-utf8", "unidic", "juman-utf8"} {
		for _, dir := range SystemFolders(name) {
			tg, err := lib.NewTagger(Args(dir, nil))
			if err != nil {
				t.Fatal(err)
			}
			f, err := readFingerprint(dir)
			if err != nil {
				t.Fatal(err)
			}
			if f != tg.Print() {
				t.Errorf("%s: header says %v, MeCab %v", dir, f, tg.Print())
			}
			seen++
		}
	}
	if seen < 2 {
		testenv.Need(t, testenv.Absent(fmt.Sprintf("IPAdic or UniDic (%d system dictionaries found, 2 wanted)", seen),
			"install Debian's mecab-ipadic-utf8 and unidic-mecab (`make deps` as root installs every system package the tests use)", nil))
	}
}

// TestIPAdicBuilds: both builds of IPAdic 2.7.0 measured are the model's
// ipadic: pip's ipadic 1.0.0 (the one transformers loads) and Debian's
// mecab-ipadic-utf8; a build for another charset is not; pip's
// unidic-lite is UniDic 2.1.2.
func TestIPAdicBuilds(t *testing.T) {
	for _, c := range []struct {
		f    Fingerprint
		want string
	}{
		{Fingerprint{392126, 1316, 1316, "UTF8"}, "IPAdic 2.7.0"},  // pip's ipadic 1.0.0
		{Fingerprint{392127, 1316, 1316, "UTF-8"}, "IPAdic 2.7.0"}, // Debian's mecab-ipadic-utf8
		{Fingerprint{392127, 1316, 1316, "EUC-JP"}, ""},
		{Fingerprint{756264, 5981, 5981, "UTF8"}, "UniDic 2.1.2 (unidic-lite)"}, // pip's unidic-lite 1.0.8
	} {
		if what, _ := Identify(c.f); what != c.want {
			t.Errorf("%v is %q, want %q", c.f, what, c.want)
		}
	}
}
