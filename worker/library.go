package worker

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"unsafe"
)

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

// qa_loadable opens name as the dynamic loader would for a library that
// needs it, and closes it again: NULL when it loads, else dlerror's text.
static const char *qa_loadable(const char *name) {
	void *h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
	if (h == NULL) {
		const char *e = dlerror();
		return e ? e : "unknown dlopen error";
	}
	dlclose(h);
	return NULL;
}
*/
import "C"

// Library is what can be said of an ONNX Runtime library before a run:
// where it is and why that one, its version, and the execution providers
// whose libraries lie beside it with what each still lacks.
type Library struct {
	Found
	// Version is the library's own version once loaded; LoadErr why it
	// could not be loaded ("" when it was).
	Version   string     `json:"version,omitempty"`
	LoadErr   string     `json:"load_error,omitempty"`
	Providers []Provider `json:"providers"`
}

// Provider is one execution provider of a library.
type Provider struct {
	Name string `json:"name"` // ProviderCPU, ProviderCUDA or ProviderTensorRT
	// File is the provider's library beside the core library ("" for the
	// CPU provider, which is built in).
	File string `json:"file,omitempty"`
	// Missing are the libraries it needs that the dynamic loader cannot
	// find (the CUDA runtime, cuBLAS, the driver's libcuda.so.1, ...):
	// while any is missing, a session on it fails.
	Missing []string `json:"missing,omitempty"`
}

// Ready is whether the provider can be enabled as far as can be told
// without a GPU: its library and everything it needs load.
func (p Provider) Ready() bool { return len(p.Missing) == 0 }

// providerFiles are the GPU providers' libraries, each beside the core
// library with libonnxruntime_providers_shared.so, as ONNX Runtime's GPU
// builds ship them.
var providerFiles = []struct{ name, file string }{
	{ProviderCUDA, "libonnxruntime_providers_cuda.so"},
	{ProviderTensorRT, "libonnxruntime_providers_tensorrt.so"},
}

const sharedProviders = "libonnxruntime_providers_shared.so"

// Describe says what a run given --ort-lib flagValue would load: the
// library (Locate), its version (loading it with Init, as a run would)
// and its providers. The CPU provider is always there; a GPU provider is
// listed when its library lies beside the core library, with what it
// needs that cannot be loaded.
func Describe(flagValue string) Library {
	l := Library{Found: locateLib(flagValue)}
	if err := Init(l.Path); err != nil {
		l.LoadErr = err.Error()
	} else {
		l.Version = Version()
	}
	l.Providers = providers(l.Path)
	return l
}

// providers are the execution providers of the core library at path: the
// CPU provider, then each GPU provider whose library lies beside it.
func providers(path string) []Provider {
	ps := []Provider{{Name: ProviderCPU}}
	if path == "" {
		return ps
	}
	dir := filepath.Dir(path)
	for _, pf := range providerFiles {
		file := filepath.Join(dir, pf.file)
		if _, err := os.Stat(file); err != nil {
			continue
		}
		p := Provider{Name: pf.name, File: file}
		if _, err := os.Stat(filepath.Join(dir, sharedProviders)); err != nil {
			p.Missing = append(p.Missing, sharedProviders)
		}
		p.Missing = append(p.Missing, unloadable(file)...)
		ps = append(ps, p)
	}
	return ps
}

// GPU is the first GPU provider whose libraries all load, else the first
// GPU provider, else nil (a CPU build).
func (l Library) GPU() *Provider {
	var first *Provider
	for i := range l.Providers {
		p := &l.Providers[i]
		if p.Name == ProviderCPU {
			continue
		}
		if p.Ready() {
			return p
		}
		if first == nil {
			first = p
		}
	}
	return first
}

// unloadable lists the libraries the ELF file at path needs (DT_NEEDED)
// that neither its own search path (RUNPATH or RPATH, $ORIGIN expanded)
// holds nor the dynamic loader can open; a file that is not a readable
// ELF library is itself unloadable.
func unloadable(path string) []string {
	f, err := elf.Open(path)
	if err != nil {
		return []string{filepath.Base(path) + " (not a readable ELF library: " + err.Error() + ")"}
	}
	defer f.Close()
	needed, err := f.ImportedLibraries()
	if err != nil {
		return []string{filepath.Base(path) + " (its dynamic section cannot be read: " + err.Error() + ")"}
	}
	var dirs []string
	for _, tag := range []elf.DynTag{elf.DT_RUNPATH, elf.DT_RPATH} {
		vals, _ := f.DynString(tag)
		for _, v := range vals {
			for _, d := range strings.Split(v, ":") {
				d = strings.ReplaceAll(strings.ReplaceAll(d, "${ORIGIN}", "$ORIGIN"), "$ORIGIN", filepath.Dir(path))
				if d != "" {
					dirs = append(dirs, d)
				}
			}
		}
	}
	var missing []string
	for _, lib := range needed {
		if onSearchPath(lib, dirs) || loadable(lib) {
			continue
		}
		missing = append(missing, lib)
	}
	return missing
}

func onSearchPath(lib string, dirs []string) bool {
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, lib)); err == nil {
			return true
		}
	}
	return false
}

// loadable is whether the dynamic loader opens the library called name
// (its own search: LD_LIBRARY_PATH as the process started, the ld.so
// cache, the system folders).
func loadable(name string) bool {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.qa_loadable(cs) == nil
}

// ProvidersLine lists a library's providers for people: "cpu" alone is a
// CPU build; a GPU provider is "ready" or names what it lacks.
func (l Library) ProvidersLine() string {
	var parts []string
	for _, p := range l.Providers {
		switch {
		case p.Name == ProviderCPU:
			parts = append(parts, p.Name)
		case p.Ready():
			parts = append(parts, p.Name+" (ready)")
		default:
			parts = append(parts, p.Name+" (missing "+strings.Join(p.Missing, ", ")+")")
		}
	}
	s := strings.Join(parts, ", ")
	if l.GPU() == nil {
		s += " (a CPU build: no GPU provider beside the library)"
	}
	return s
}
