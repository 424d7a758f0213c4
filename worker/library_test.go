package worker

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLocateOrder: --ort-lib, then $QA_SHARD_ORT_LIB, then make install's
// layout beside the binary (lib/qa-shard), then the build tree's (ort/),
// symbolic links to the binary resolved; nothing found is "".
func TestLocateOrder(t *testing.T) {
	prefix := t.TempDir()
	bin := filepath.Join(prefix, "bin", "qa-shard")
	installed := filepath.Join(prefix, "lib", "qa-shard", LibName)
	tree := filepath.Join(prefix, "ort", LibName)
	for _, p := range []string{bin, installed, tree} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "qa-shard")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, flag, env, exe, want, from string
	}{
		{"flag first", "/x/flag.so", "/x/env.so", bin, "/x/flag.so", "--ort-lib"},
		{"then the variable", "", "/x/env.so", bin, "/x/env.so", "$QA_SHARD_ORT_LIB"},
		{"then the installed layout", "", "", bin, installed, "installed beside the binary"},
		{"through a symbolic link", "", "", link, installed, "installed beside the binary"},
	} {
		got := locate(c.flag, c.env, c.exe)
		if got.Path != c.want || !strings.HasPrefix(got.From, c.from) {
			t.Errorf("%s: %+v, want %s from %q", c.name, got, c.want, c.from)
		}
	}
	if err := os.Remove(installed); err != nil {
		t.Fatal(err)
	}
	if got := locate("", "", bin); got.Path != tree || !strings.Contains(got.From, "build tree") {
		t.Errorf("without the installed layout: %+v, want the build tree's %s", got, tree)
	}
	if err := os.Remove(tree); err != nil {
		t.Fatal(err)
	}
	if got := locate("", "", bin); got.Path != "" {
		t.Errorf("nothing beside the binary: %+v, want none", got)
	}
}

// cc builds a shared library from C source with gcc (cgo's compiler,
// which the build needs anyway).
func cc(t *testing.T, out, src string, args ...string) {
	t.Helper()
	c := filepath.Join(t.TempDir(), "x.c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("gcc", append([]string{"-shared", "-fPIC", "-o", out, c}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
}

// TestUnloadableNamesWhatTheLoaderLacks: a provider library's needed
// libraries are found on its own RUNPATH ($ORIGIN) or by the dynamic
// loader; one found nowhere is named, one beside it ($ORIGIN) is not.
func TestUnloadableNamesWhatTheLoaderLacks(t *testing.T) {
	stubs := t.TempDir()
	cc(t, filepath.Join(stubs, "libqafakecuda.so.77"), "int qa_fake_cuda(void) { return 1; }", "-Wl,-soname,libqafakecuda.so.77")
	cc(t, filepath.Join(stubs, "libqabeside.so.3"), "int qa_beside(void) { return 2; }", "-Wl,-soname,libqabeside.so.3")
	dir := t.TempDir()
	if err := os.Rename(filepath.Join(stubs, "libqabeside.so.3"), filepath.Join(dir, "libqabeside.so.3")); err != nil {
		t.Fatal(err)
	}
	provider := filepath.Join(dir, "libonnxruntime_providers_cuda.so")
	cc(t, provider, "int qa_fake_cuda(void); int qa_beside(void); int qa_provider(void) { return qa_fake_cuda() + qa_beside(); }",
		"-Wl,--no-as-needed", "-L"+stubs, "-L"+dir, "-l:libqafakecuda.so.77", "-l:libqabeside.so.3", "-Wl,-rpath,$ORIGIN", "-Wl,--enable-new-dtags")
	got := unloadable(provider)
	if !slices.Equal(got, []string{"libqafakecuda.so.77"}) {
		t.Errorf("unloadable = %v, want only libqafakecuda.so.77 (libqabeside.so.3 is on its $ORIGIN runpath, libc loads)", got)
	}
	if got := unloadable(filepath.Join(stubs, "missing.so")); len(got) != 1 || !strings.Contains(got[0], "not a readable ELF library") {
		t.Errorf("a missing file: %v, want it named as unreadable", got)
	}
}

// TestDescribeCPUBuild: the library make ort fetches (loaded by
// TestMain, as Describe loads it) has its version and only the CPU
// provider, so GPU() is nil.
func TestDescribeCPUBuild(t *testing.T) {
	if setupErr != nil {
		t.Fatalf("test setup: %v", setupErr)
	}
	l := Describe(ortLib)
	if l.LoadErr != "" || l.Version == "" || l.Path != ortLib || l.From != "--ort-lib" {
		t.Fatalf("Describe(%s) = %+v, want it loaded with a version", ortLib, l)
	}
	if len(l.Providers) != 1 || l.Providers[0].Name != ProviderCPU || l.GPU() != nil {
		t.Errorf("providers %+v, want the CPU provider alone", l.Providers)
	}
}

// TestProvidersBesideTheLibrary: provider libraries beside the core
// library are listed, each with what it lacks: the shared providers
// library while it is not there, and the needed libraries the loader
// cannot open.
func TestProvidersBesideTheLibrary(t *testing.T) {
	dir := t.TempDir()
	core := filepath.Join(dir, LibName)
	if err := os.WriteFile(core, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stubs := t.TempDir()
	cc(t, filepath.Join(stubs, "libqafakecudart.so.99"), "int qa_cudart(void) { return 1; }", "-Wl,-soname,libqafakecudart.so.99")
	cc(t, filepath.Join(dir, "libonnxruntime_providers_cuda.so"), "int qa_cudart(void); int qa_p(void) { return qa_cudart(); }",
		"-Wl,--no-as-needed", "-L"+stubs, "-l:libqafakecudart.so.99")
	l := Library{Found: Found{Path: core}, Providers: providers(core)}
	g := l.GPU()
	if g == nil || g.Name != ProviderCUDA || len(l.Providers) != 2 {
		t.Fatalf("providers %+v, want cpu and cuda", l.Providers)
	}
	if !slices.Equal(g.Missing, []string{sharedProviders, "libqafakecudart.so.99"}) || g.Ready() {
		t.Errorf("cuda lacks %v, want %s (not beside it) and libqafakecudart.so.99 (not loadable)", g.Missing, sharedProviders)
	}
	cc(t, filepath.Join(dir, sharedProviders), "int qa_shared(void) { return 0; }")
	if err := os.Rename(filepath.Join(stubs, "libqafakecudart.so.99"), filepath.Join(dir, "libqafakecudart.so.99")); err != nil {
		t.Fatal(err)
	}
	// Beside the provider but not on its search path: still missing.
	if g := (Library{Providers: providers(core)}).GPU(); !slices.Equal(g.Missing, []string{"libqafakecudart.so.99"}) {
		t.Errorf("with the shared providers library beside it, cuda lacks %v, want only libqafakecudart.so.99", g.Missing)
	}
}
