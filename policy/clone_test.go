package policy

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fill sets every field reachable from v to a non-zero value: pointers get a filled value,
// slices and maps one filled element. A Policy nested in a Layer is filled one level deep.
// Being reflective, it also fills fields added to Policy later.
func fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		if v.Type() == reflect.TypeFor[*Policy]() && depth > 1 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), depth)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth)
		fill(e, depth)
		v.SetMapIndex(k, e)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), depth)
		}
	default:
		panic("fill: no case for " + v.Kind().String() + " (" + v.Type().String() + ")")
	}
}

func filledPolicy() *Policy {
	p := new(Policy)
	fill(reflect.ValueOf(p).Elem(), 0)
	return p
}

// shared names the first pointer, slice or map reachable from both a and b at the same
// address, or "".
func shared(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := range min(a.Len(), b.Len()) {
			if s := shared(a.Index(i), b.Index(i), path+"[i]"); s != "" {
				return s
			}
		}
	case reflect.Map:
		if !a.IsNil() && !b.IsNil() && a.Pointer() == b.Pointer() {
			return path
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); bv.IsValid() {
				if s := shared(a.MapIndex(k), bv, path+"[k]"); s != "" {
					return s
				}
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if s := shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); s != "" {
				return s
			}
		}
	}
	return ""
}

// scribble overwrites every value reachable from v: leaves become zero, map entries are
// rewritten, slices keep their backing array but lose their contents.
func scribble(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			scribble(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			scribble(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			v.SetMapIndex(k, reflect.Zero(v.Type().Elem()))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			scribble(v.Field(i))
		}
	default:
		v.SetZero()
	}
}

func TestCloneSharesNothing(t *testing.T) {
	p := filledPolicy()
	c := p.Clone()
	if diff := cmp.Diff(p, c); diff != "" {
		t.Fatalf("Clone differs from the original (-orig +clone):\n%s", diff)
	}
	if s := shared(reflect.ValueOf(p), reflect.ValueOf(c), "Policy"); s != "" {
		t.Errorf("Clone shares %s with the original: deep-copy it in Policy.Clone", s)
	}
	scribble(reflect.ValueOf(c))
	if diff := cmp.Diff(filledPolicy(), p); diff != "" {
		t.Errorf("changing the clone changed the original (-want +got):\n%s", diff)
	}
}

func TestCloneKeepsNilAndEmpty(t *testing.T) {
	if (*Policy)(nil).Clone() != nil {
		t.Error("nil.Clone() is not nil")
	}
	p := &Policy{Retry: Retry{On: []string{}}, Layers: []Layer{{Name: "gw"}}}
	c := p.Clone()
	if c.Retry.On == nil || len(c.Retry.On) != 0 {
		t.Errorf("Retry.On = %#v, want an empty non-nil list (retry nothing)", c.Retry.On)
	}
	if c.Retry.Never != nil || c.Budget != nil || c.IdempotencyKey != nil || c.Source != nil {
		t.Errorf("nil fields became non-nil: %+v", c)
	}
	if len(c.Layers) != 1 || c.Layers[0].Policy != nil {
		t.Errorf("Layers = %+v, want one layer without a policy", c.Layers)
	}
	if CloneLayers(nil) != nil {
		t.Error("CloneLayers(nil) is not nil")
	}
}
