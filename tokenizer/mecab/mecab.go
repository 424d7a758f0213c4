// Package mecab loads the MeCab morphological analyser (libmecab) at run
// time and splits Japanese text into its words, as transformers'
// MecabTokenizer does through fugashi: the surfaces of the nodes MeCab's
// best path holds, between BOS and EOS.
//
// libmecab is opened with dlopen, as ONNX Runtime is: qa-shard builds and
// runs without it, and only a model whose tokenizer needs MeCab asks for
// it. The few C functions used are declared here (mecab.h of MeCab 0.996,
// whose C API has not changed since 0.99).
package mecab

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef struct mecab_t mecab_t;
typedef struct mecab_model_t mecab_model_t;
typedef struct mecab_lattice_t mecab_lattice_t;

// mecab_dictionary_info_t and mecab_node_t as mecab.h lays them out.
typedef struct mecab_dictionary_info_t {
	const char *filename;
	const char *charset;
	unsigned int size;
	int type;
	unsigned int lsize;
	unsigned int rsize;
	unsigned short version;
	struct mecab_dictionary_info_t *next;
} mecab_dictionary_info_t;

typedef struct mecab_node_t {
	struct mecab_node_t *prev;
	struct mecab_node_t *next;
	struct mecab_node_t *enext;
	struct mecab_node_t *bnext;
	void *rpath;
	void *lpath;
	const char *surface;
	const char *feature;
	unsigned int id;
	unsigned short length;
	unsigned short rlength;
	unsigned short rcAttr;
	unsigned short lcAttr;
	unsigned short posid;
	unsigned char char_type;
	unsigned char stat;
	unsigned char isbest;
	float alpha;
	float beta;
	float prob;
	short wcost;
	long cost;
} mecab_node_t;

#define MECAB_BOS_NODE 2
#define MECAB_EOS_NODE 3

typedef struct {
	void *handle;
	mecab_model_t *(*model_new)(int, char **);
	void (*model_destroy)(mecab_model_t *);
	mecab_t *(*model_new_tagger)(mecab_model_t *);
	mecab_lattice_t *(*model_new_lattice)(mecab_model_t *);
	const mecab_dictionary_info_t *(*model_dictionary_info)(mecab_model_t *);
	void (*destroy)(mecab_t *);
	void (*lattice_destroy)(mecab_lattice_t *);
	void (*lattice_set_sentence2)(mecab_lattice_t *, const char *, size_t);
	mecab_node_t *(*lattice_get_bos_node)(mecab_lattice_t *);
	const char *(*lattice_strerror)(mecab_lattice_t *);
	int (*parse_lattice)(mecab_t *, mecab_lattice_t *);
	const char *(*strerror)(mecab_t *);
	const char *(*version)(void);
} qa_mecab_lib;

// qa_mecab_open fills lib from the library at path; it returns the name
// of the first symbol missing, "" when every one was found, or NULL when
// the library itself could not be opened (dlerror says why).
static const char *qa_mecab_open(const char *path, qa_mecab_lib *lib) {
	memset(lib, 0, sizeof(*lib));
	lib->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib->handle) return NULL;
#define SYM(field, name) if (!(*(void **)(&lib->field) = dlsym(lib->handle, name))) return name;
	SYM(model_new, "mecab_model_new")
	SYM(model_destroy, "mecab_model_destroy")
	SYM(model_new_tagger, "mecab_model_new_tagger")
	SYM(model_new_lattice, "mecab_model_new_lattice")
	SYM(model_dictionary_info, "mecab_model_dictionary_info")
	SYM(destroy, "mecab_destroy")
	SYM(lattice_destroy, "mecab_lattice_destroy")
	SYM(lattice_set_sentence2, "mecab_lattice_set_sentence2")
	SYM(lattice_get_bos_node, "mecab_lattice_get_bos_node")
	SYM(lattice_strerror, "mecab_lattice_strerror")
	SYM(parse_lattice, "mecab_parse_lattice")
	SYM(strerror, "mecab_strerror")
	SYM(version, "mecab_version")
#undef SYM
	return "";
}

static const char *qa_dlerror(void) {
	const char *e = dlerror();
	return e ? e : "unknown dlopen error";
}

static mecab_model_t *qa_model_new(qa_mecab_lib *lib, int argc, char **argv) { return lib->model_new(argc, argv); }
static void qa_model_destroy(qa_mecab_lib *lib, mecab_model_t *m) { lib->model_destroy(m); }
static mecab_t *qa_model_new_tagger(qa_mecab_lib *lib, mecab_model_t *m) { return lib->model_new_tagger(m); }
static mecab_lattice_t *qa_model_new_lattice(qa_mecab_lib *lib, mecab_model_t *m) { return lib->model_new_lattice(m); }
static const mecab_dictionary_info_t *qa_dictionary_info(qa_mecab_lib *lib, mecab_model_t *m) { return lib->model_dictionary_info(m); }
static void qa_destroy(qa_mecab_lib *lib, mecab_t *t) { lib->destroy(t); }
static void qa_lattice_destroy(qa_mecab_lib *lib, mecab_lattice_t *l) { lib->lattice_destroy(l); }
static const char *qa_strerror(qa_mecab_lib *lib, mecab_t *t) { return lib->strerror(t); }
static const char *qa_version(qa_mecab_lib *lib) { return lib->version(); }

// qa_split parses s[0:n] and writes the byte offset and length of each
// word (every node between BOS and EOS) into out, two ints a word, at most
// cap words; it returns the number of words, or -1 when MeCab fails
// (mecab_lattice_strerror says why), or -2 - needed when out is too small.
static int qa_split(qa_mecab_lib *lib, mecab_t *t, mecab_lattice_t *l, const char *s, size_t n, int *out, int cap) {
	lib->lattice_set_sentence2(l, s, n);
	if (!lib->parse_lattice(t, l)) return -1;
	int k = 0;
	for (mecab_node_t *node = lib->lattice_get_bos_node(l); node; node = node->next) {
		if (node->stat == MECAB_BOS_NODE || node->stat == MECAB_EOS_NODE) continue;
		if (k < cap) {
			out[2*k] = (int)(node->surface - s);
			out[2*k+1] = (int)node->length;
		}
		k++;
	}
	return k <= cap ? k : -2 - k;
}

static const char *qa_lattice_strerror(qa_mecab_lib *lib, mecab_lattice_t *l) { return lib->lattice_strerror(l); }
*/
import "C"

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"qa-shard/internal/errkind"
)

// ErrLibrary marks a libmecab that cannot be loaded; ErrDictionary a
// dictionary MeCab cannot open.
var (
	ErrLibrary    = errkind.NewUser("MeCab library")
	ErrDictionary = errkind.NewUser("MeCab dictionary")
)

// Library is a loaded libmecab. Libraries are never unloaded.
type Library struct {
	lib  *C.qa_mecab_lib
	Path string // what was opened
}

var (
	libMu sync.Mutex
	libs  = map[string]*Library{}
)

// DefaultNames are the names dlopen is asked for when no path is given,
// in order: the shared library of every MeCab 0.99x build (Debian's
// libmecab2, Homebrew's mecab, a build from source).
var DefaultNames = []string{"libmecab.so.2", "libmecab.so", "libmecab.2.dylib", "libmecab.dylib"}

// Load opens libmecab at path, or, when path is "", the first of
// DefaultNames the dynamic loader finds.
func Load(path string) (*Library, error) {
	libMu.Lock()
	defer libMu.Unlock()
	names := []string{path}
	if path == "" {
		names = DefaultNames
	}
	var reasons []string
	for _, name := range names {
		if l, ok := libs[name]; ok {
			return l, nil
		}
		lib := (*C.qa_mecab_lib)(C.malloc(C.size_t(unsafe.Sizeof(C.qa_mecab_lib{}))))
		cname := C.CString(name)
		missing := C.qa_mecab_open(cname, lib)
		C.free(unsafe.Pointer(cname))
		switch {
		case missing == nil:
			reasons = append(reasons, C.GoString(C.qa_dlerror()))
			C.free(unsafe.Pointer(lib))
			continue
		case C.GoString(missing) != "":
			C.free(unsafe.Pointer(lib))
			return nil, fmt.Errorf("%w: %s has no %s: it is not MeCab's C library (libmecab 0.99x)", ErrLibrary, name, C.GoString(missing))
		}
		l := &Library{lib: lib, Path: name}
		libs[name] = l
		return l, nil
	}
	return nil, fmt.Errorf("%w: cannot load %s (%s)", ErrLibrary, strings.Join(names, " or "), strings.Join(reasons, "; "))
}

// Version is mecab_version().
func (l *Library) Version() string { return C.GoString(C.qa_version(l.lib)) }

// DictionaryInfo is one dictionary of a loaded model
// (mecab_dictionary_info_t).
type DictionaryInfo struct {
	Filename string
	Charset  string
	Size     uint32 // lexicon entries
	Type     int    // 0 system, 1 user, 2 unknown-word
	LSize    uint32 // left and right context ids (the connection matrix)
	RSize    uint32
	Version  uint16
}

// Tagger is a MeCab model with the dictionary its arguments named: safe
// for concurrent use (each call parses on a lattice of its own; MeCab's
// parse of a lattice is const and thread-safe).
type Tagger struct {
	lib      *Library
	model    *C.mecab_model_t
	tagger   *C.mecab_t
	lattices sync.Pool
	args     []string
	dicts    []DictionaryInfo
}

// NewTagger loads a model as mecab_model_new(argc, argv) does with args
// (MeCab's own command-line options, such as -d DICDIR -r RCFILE), as
// fugashi's GenericTagger passes them.
func (l *Library) NewTagger(args []string) (*Tagger, error) {
	argv := make([]*C.char, len(args)+1)
	argv[0] = C.CString("mecab")
	for i, a := range args {
		argv[i+1] = C.CString(a)
	}
	defer func() {
		for _, p := range argv {
			C.free(unsafe.Pointer(p))
		}
	}()
	cargv := (**C.char)(C.malloc(C.size_t(len(argv)) * C.size_t(unsafe.Sizeof(argv[0]))))
	defer C.free(unsafe.Pointer(cargv))
	copy(unsafe.Slice(cargv, len(argv)), argv)
	m := C.qa_model_new(l.lib, C.int(len(argv)), cargv)
	if m == nil {
		return nil, fmt.Errorf("%w: MeCab cannot load a model with %q: %s", ErrDictionary, strings.Join(args, " "), C.GoString(C.qa_strerror(l.lib, nil)))
	}
	tg := C.qa_model_new_tagger(l.lib, m)
	if tg == nil {
		C.qa_model_destroy(l.lib, m)
		return nil, fmt.Errorf("%w: MeCab cannot make a tagger with %q: %s", ErrDictionary, strings.Join(args, " "), C.GoString(C.qa_strerror(l.lib, nil)))
	}
	t := &Tagger{lib: l, model: m, tagger: tg, args: append([]string(nil), args...)}
	for d := C.qa_dictionary_info(l.lib, m); d != nil; d = d.next {
		t.dicts = append(t.dicts, DictionaryInfo{Filename: C.GoString(d.filename), Charset: C.GoString(d.charset),
			Size: uint32(d.size), Type: int(d._type), LSize: uint32(d.lsize), RSize: uint32(d.rsize), Version: uint16(d.version)})
	}
	return t, nil
}

// Dictionaries are the model's dictionaries, the system dictionary first.
func (t *Tagger) Dictionaries() []DictionaryInfo { return t.dicts }

// Args are the options the model was loaded with.
func (t *Tagger) Args() []string { return t.args }

// Library is the libmecab the tagger runs on.
func (t *Tagger) Library() *Library { return t.lib }

// lattice is one parse's state, with a C copy of the text it parses (the
// lattice keeps a pointer to the sentence, so it must not be Go memory).
type lattice struct {
	l      *C.mecab_lattice_t
	buf    *C.char
	bufCap int
	out    *C.int
	outCap int
}

// Split appends to dst the byte range [start, end) in text of each word
// MeCab finds in it.
func (t *Tagger) Split(text string, dst [][2]int) ([][2]int, error) {
	if text == "" {
		return dst, nil
	}
	lt, _ := t.lattices.Get().(*lattice)
	if lt == nil {
		l := C.qa_model_new_lattice(t.lib.lib, t.model)
		if l == nil {
			return dst, fmt.Errorf("%w: MeCab cannot make a lattice", ErrDictionary)
		}
		lt = &lattice{l: l}
		runtime.SetFinalizer(lt, func(lt *lattice) {
			C.qa_lattice_destroy(t.lib.lib, lt.l)
			C.free(unsafe.Pointer(lt.buf))
			C.free(unsafe.Pointer(lt.out))
		})
	}
	defer t.lattices.Put(lt)
	if lt.bufCap < len(text) {
		C.free(unsafe.Pointer(lt.buf))
		lt.bufCap = max(len(text), 2*lt.bufCap)
		lt.buf = (*C.char)(C.malloc(C.size_t(lt.bufCap)))
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(lt.buf)), len(text)), text)
	// Every word is at least one byte long: as many words as bytes at most.
	if lt.outCap < len(text) {
		C.free(unsafe.Pointer(lt.out))
		lt.outCap = max(len(text), 2*lt.outCap)
		lt.out = (*C.int)(C.malloc(C.size_t(2*lt.outCap) * C.size_t(unsafe.Sizeof(C.int(0)))))
	}
	k := int(C.qa_split(t.lib.lib, t.tagger, lt.l, lt.buf, C.size_t(len(text)), lt.out, C.int(lt.outCap)))
	if k == -1 {
		return dst, fmt.Errorf("%w: MeCab cannot parse a text of %d bytes: %s", ErrDictionary, len(text), C.GoString(C.qa_lattice_strerror(t.lib.lib, lt.l)))
	}
	if k < -1 {
		return dst, fmt.Errorf("%w: MeCab returned %d words for %d bytes", ErrDictionary, -2-k, len(text))
	}
	out := unsafe.Slice(lt.out, 2*k)
	dst = slices.Grow(dst, k)
	for i := range k {
		a, n := int(out[2*i]), int(out[2*i+1])
		if a < 0 || n <= 0 || a+n > len(text) {
			return dst, fmt.Errorf("%w: MeCab returned a word at bytes %d+%d of a text of %d bytes", ErrDictionary, a, n, len(text))
		}
		dst = append(dst, [2]int{a, a + n})
	}
	return dst, nil
}
