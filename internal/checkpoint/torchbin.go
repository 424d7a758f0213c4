package checkpoint

import (
	"archive/zip"
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// A pytorch_model.bin is torch.save's zip: <root>/data.pkl, a pickle of
// the state dict whose tensors name their storages by key through
// persistent ids, and <root>/data/<key>, each storage's raw bytes, stored
// uncompressed. The pickle is read by nlpodyssey/gopickle's unpickler
// with a class finder of our own that admits only what torch's
// weights_only loader admits for a state dict: the tensor and parameter
// rebuilds, the typed storages and OrderedDict. Any other global is
// refused, naming it: a pickle can never make this program do anything
// but build a dict of tensors. (gopickle's own torch loader is not used:
// it copies every storage into memory and widens float16 and bfloat16 to
// float32; here the storages stay views of the mapped file.)

// allowedGlobals are the globals a state dict's pickle may name.
var allowedGlobals = map[string]bool{
	"torch._utils._rebuild_tensor_v2":            true,
	"torch._utils._rebuild_parameter":            true,
	"torch._utils._rebuild_parameter_with_state": true,
	"collections.OrderedDict":                    true,
}

// storageTypes are the typed storages a pickle may name, with their
// element type (the others stand for buffers, such as position_ids).
var storageTypes = map[string]DType{
	"FloatStorage": F32, "HalfStorage": F16, "BFloat16Storage": BF16,
	"DoubleStorage": Other, "LongStorage": Other, "IntStorage": Other, "ShortStorage": Other,
	"CharStorage": Other, "ByteStorage": Other, "BoolStorage": Other,
}

// storageClass is a typed storage class the pickle named.
type storageClass struct {
	name  string
	dtype DType
}

// storage is one storage of the zip: its bytes in the mapped file.
type storage struct {
	class storageClass
	data  []byte
}

// rebuild is one of the allowed callables.
type rebuild struct{ name string }

func (r rebuild) Call(args ...interface{}) (interface{}, error) {
	switch r.name {
	case "torch._utils._rebuild_tensor_v2":
		return rebuildTensor(args)
	case "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state":
		if len(args) < 1 {
			return nil, fmt.Errorf("%s without its tensor", r.name)
		}
		if _, ok := args[0].(*Tensor); !ok {
			return nil, fmt.Errorf("%s of %T, not a tensor", r.name, args[0])
		}
		return args[0], nil
	}
	return nil, fmt.Errorf("%s is not callable here", r.name)
}

// rebuildTensor is torch._utils._rebuild_tensor_v2(storage, offset,
// size, stride, requires_grad, backward_hooks[, metadata]): a view of the
// storage, which must be row-major (save_pretrained's parameters are).
func rebuildTensor(args []interface{}) (interface{}, error) {
	if len(args) < 4 {
		return nil, fmt.Errorf("_rebuild_tensor_v2 with %d arguments", len(args))
	}
	st, ok := args[0].(*storage)
	offset, ok2 := args[1].(int)
	size, ok3 := args[2].(*types.Tuple)
	stride, ok4 := args[3].(*types.Tuple)
	if !ok || !ok2 || !ok3 || !ok4 {
		return nil, fmt.Errorf("_rebuild_tensor_v2(%T, %T, %T, %T): not a storage, an offset, a size and a stride", args[0], args[1], args[2], args[3])
	}
	t := &Tensor{DType: st.class.dtype, TypeName: "torch." + st.class.name}
	want := int64(1)
	for i := size.Len() - 1; i >= 0; i-- {
		d, ok := size.Get(i).(int)
		s, ok2 := stride.Get(i).(int)
		if !ok || !ok2 || d < 0 {
			return nil, fmt.Errorf("_rebuild_tensor_v2: size %v, stride %v", *size, *stride)
		}
		if d > 1 && int64(s) != want {
			return nil, fmt.Errorf("a tensor of size %v and stride %v is not row-major (save it contiguous)", *size, *stride)
		}
		want *= int64(d)
	}
	if size.Len() != stride.Len() {
		return nil, fmt.Errorf("_rebuild_tensor_v2: size %v, stride %v", *size, *stride)
	}
	for i := range size.Len() {
		t.Shape = append(t.Shape, int64(size.Get(i).(int)))
	}
	elem := int64(st.class.dtype.Size())
	if elem == 0 {
		elem = 1 // a buffer: its bytes are never read, only its shape named
		t.data = nil
		return t, nil
	}
	from, to := int64(offset)*elem, (int64(offset)+t.Elements())*elem
	if offset < 0 || to > int64(len(st.data)) {
		return nil, fmt.Errorf("a tensor of %d elements at offset %d runs past its storage of %d bytes", t.Elements(), offset, len(st.data))
	}
	t.data = st.data[from:to]
	return t, nil
}

// readTorch reads one torch.save zip.
func (c *Checkpoint) readTorch(m *mapping) error {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrCheckpoint, m.path, fmt.Sprintf(format, a...))
	}
	zr, err := zip.NewReader(bytes.NewReader(m.data), int64(len(m.data)))
	if err != nil {
		return fail("not a torch.save zip (%v): the legacy tar format and TorchScript files are not read; save with torch.save or save_pretrained", err)
	}
	entries := map[string]*zip.File{}
	var pkl *zip.File
	for _, f := range zr.File {
		entries[f.Name] = f
		if path.Base(f.Name) == "data.pkl" && strings.Count(f.Name, "/") == 1 {
			pkl = f
		}
	}
	if pkl == nil {
		return fail("has no data.pkl: not a torch.save file")
	}
	root := path.Dir(pkl.Name)
	if _, ts := entries[root+"/constants.pkl"]; ts {
		return fail("is a TorchScript file, not a state dict")
	}
	rc, err := pkl.Open()
	if err != nil {
		return fail("reading data.pkl: %v", err)
	}
	defer rc.Close()
	storages := map[string]*storage{}
	u := pickle.NewUnpickler(rc)
	u.FindClass = func(module, name string) (interface{}, error) {
		global := module + "." + name
		if dt, ok := storageTypes[name]; ok && module == "torch" {
			return storageClass{name: name, dtype: dt}, nil
		}
		if !allowedGlobals[global] {
			return nil, fmt.Errorf("the pickle names the global %s, which a state dict does not need (only tensors, storages and OrderedDict are read, as torch.load(weights_only=True) reads them); refused, nothing of it was run", global)
		}
		if global == "collections.OrderedDict" {
			return &types.OrderedDictClass{}, nil
		}
		return rebuild{name: global}, nil
	}
	u.PersistentLoad = func(pid interface{}) (interface{}, error) {
		t, ok := pid.(*types.Tuple)
		if !ok || t.Len() < 5 {
			return nil, fmt.Errorf("a persistent id %v that is not a storage", pid)
		}
		kind, _ := t.Get(0).(string)
		class, ok1 := t.Get(1).(storageClass)
		key, ok2 := t.Get(2).(string)
		numel, ok3 := t.Get(4).(int)
		if kind != "storage" || !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("a persistent id %v that is not a storage", pid)
		}
		if st, ok := storages[key]; ok {
			return st, nil
		}
		f, ok := entries[root+"/data/"+key]
		if !ok {
			return nil, fmt.Errorf("storage %s is not in the zip", key)
		}
		if f.Method != zip.Store {
			return nil, fmt.Errorf("storage %s is compressed (torch.save stores them raw)", key)
		}
		at, err := f.DataOffset()
		if err != nil {
			return nil, err
		}
		size := int64(f.UncompressedSize64)
		if elem := class.dtype.Size(); elem > 0 && int64(numel)*int64(elem) != size {
			return nil, fmt.Errorf("storage %s holds %d bytes, not %d elements of %s", key, size, numel, class.dtype)
		}
		if at < 0 || at+size > int64(len(m.data)) {
			return nil, fmt.Errorf("storage %s runs past the end of the file", key)
		}
		st := &storage{class: class, data: m.data[at : at+size]}
		storages[key] = st
		return st, nil
	}
	v, err := u.Load()
	if err != nil {
		return fail("%v", err)
	}
	return c.addStateDict(m.path, v)
}

// addStateDict adds the tensors of an unpickled state dict: a dict of
// names to tensors and nothing else.
func (c *Checkpoint) addStateDict(file string, v interface{}) error {
	add := func(k, val interface{}) error {
		name, ok := k.(string)
		if !ok {
			return fmt.Errorf("%w: %s: the state dict has a key %v that is not a name", ErrCheckpoint, file, k)
		}
		t, ok := val.(*Tensor)
		if !ok {
			return fmt.Errorf("%w: %s: %s is a %T, not a tensor: not a state dict (a whole pickled model or a training checkpoint is not read; save the state dict with save_pretrained)", ErrCheckpoint, file, name, val)
		}
		t.Name, t.File = name, file
		return c.add(t)
	}
	switch d := v.(type) {
	case *types.OrderedDict:
		for e := d.List.Front(); e != nil; e = e.Next() {
			entry := e.Value.(*types.OrderedDictEntry)
			if err := add(entry.Key, entry.Value); err != nil {
				return err
			}
		}
	case *types.Dict:
		for _, e := range *d {
			if err := add(e.Key, e.Value); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: %s holds a %T, not a state dict of tensors", ErrCheckpoint, file, v)
	}
	return nil
}
