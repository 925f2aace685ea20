package codec

import (
	"fmt"
	"github.com/spcalab/spca/testimages"
	"io"
	"reflect"
	"slices"
	"sync"
	"testing"
	"unsafe"
)

// trainedOnce holds the models of the small-model helpers (smallModel,
// smallColorModel), each trained once per set of options and images and
// never used but as the original of deepCopy: about a hundred calls
// trained ten distinct models, ~9 s of the package's test CPU.
var trainedOnce struct {
	sync.Mutex
	models map[string]*Model
}

// cachedTrain returns a deep copy of the model train gives for key,
// trained on the first call with that key. Every caller gets a model of
// its own, which it may change (SetBins, SetStep, ...), in the state
// Train left it but for the channels' fast paths, built once on the
// original (loadFast, as a first encode would): the fast path is an
// unfolding of 2^16 points, 0.2-0.5 s for each channel of a small model,
// and the copies, ~140 of them, each built theirs again (~40 s of the
// package's test CPU, session 28). What the build gives, an error
// included, is what every copy then has.
func cachedTrain(t testing.TB, key string, train func() (*Model, error)) *Model {
	t.Helper()
	trainedOnce.Lock()
	defer trainedOnce.Unlock()
	m := trainedOnce.models[key]
	if m == nil {
		var err error
		if m, err = train(); err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Channels {
			c.loadFast()
		}
		if trainedOnce.models == nil {
			trainedOnce.models = map[string]*Model{}
		}
		trainedOnce.models[key] = m
	}
	c, err := deepCopy(m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// deepCopy returns a copy of the value *p sharing no memory with it but
// its strings and functions: every pointer, slice and map reached from p,
// exported or not, is copied, a pointer or slice reached twice once. It
// refuses values it cannot copy faithfully: channels, unsafe pointers, and
// memory reached through two different pointers or slices that overlap
// without being the same (a slice of an array reached also whole, a
// pointer into a slice), whose copies would no longer share it.
func deepCopy[T any](p *T) (*T, error) {
	c := &copier{copies: map[copyKey]reflect.Value{}}
	q := c.pointer(reflect.ValueOf(p))
	if c.err != nil {
		return nil, c.err
	}
	if err := c.overlaps(); err != nil {
		return nil, err
	}
	return q.Interface().(*T), nil
}

// copyKey names memory reached by a pointer (size: the element's) or a
// slice (size: its capacity's), of its type.
type copyKey struct {
	addr, size uintptr
	t          reflect.Type
}

type copier struct {
	copies map[copyKey]reflect.Value // the copy of each pointer and slice array
	err    error
}

// open returns v, which must be addressable, with its read-only flag
// dropped, so that the values of unexported fields can be copied.
func open(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// addressable returns an addressable copy of v (a map's key or value, an
// interface's dynamic value).
func addressable(v reflect.Value) reflect.Value {
	a := reflect.New(v.Type()).Elem()
	a.Set(v)
	return a
}

func (c *copier) fail(format string, a ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("deepCopy: "+format, a...)
	}
}

// pointer returns the copy of the non-nil pointer p.
func (c *copier) pointer(p reflect.Value) reflect.Value {
	k := copyKey{p.Pointer(), p.Type().Elem().Size(), p.Type()}
	if q, ok := c.copies[k]; ok {
		return q
	}
	q := reflect.New(p.Type().Elem())
	c.copies[k] = q
	c.copy(q.Elem(), p.Elem())
	return q
}

// slice returns the copy of the non-nil slice s: of its whole capacity,
// so that slices of the same array share the copy.
func (c *copier) slice(s reflect.Value) reflect.Value {
	whole := s.Slice3(0, s.Cap(), s.Cap())
	k := copyKey{s.Pointer(), uintptr(s.Cap()) * s.Type().Elem().Size(), s.Type()}
	q, ok := c.copies[k]
	if !ok {
		q = reflect.MakeSlice(s.Type(), s.Cap(), s.Cap())
		c.copies[k] = q
		if pointerFree(s.Type().Elem()) {
			reflect.Copy(q, whole)
		} else {
			for i := range s.Cap() {
				c.copy(q.Index(i), whole.Index(i))
			}
		}
	}
	return q.Slice3(0, s.Len(), s.Cap())
}

// pointerFree reports whether values of type t hold no pointer, slice,
// map, interface, function, channel or string: copied by one move.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.Array:
		return pointerFree(t.Elem())
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.String:
		return false
	}
	return true
}

// copy copies src into dst, a zero value of its type; both addressable.
func (c *copier) copy(dst, src reflect.Value) {
	if c.err != nil {
		return
	}
	if k := src.Kind(); (k == reflect.Struct || k == reflect.Array) && pointerFree(src.Type()) {
		open(dst).Set(open(src))
		return
	}
	switch src.Kind() {
	case reflect.Pointer:
		if !src.IsNil() {
			open(dst).Set(c.pointer(open(src)))
		}
	case reflect.Slice:
		if !src.IsNil() {
			open(dst).Set(c.slice(open(src)))
		}
	case reflect.Struct:
		for i := range src.NumField() {
			c.copy(dst.Field(i), src.Field(i))
		}
	case reflect.Array:
		for i := range src.Len() {
			c.copy(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		for it := open(src).MapRange(); it.Next(); {
			k, v := reflect.New(src.Type().Key()).Elem(), reflect.New(src.Type().Elem()).Elem()
			c.copy(k, addressable(it.Key()))
			c.copy(v, addressable(it.Value()))
			m.SetMapIndex(k, v)
		}
		open(dst).Set(m)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		e := open(src).Elem()
		v := reflect.New(e.Type()).Elem()
		c.copy(v, addressable(e))
		open(dst).Set(v)
	case reflect.Chan, reflect.UnsafePointer:
		if !src.IsNil() {
			c.fail("cannot copy a %v", src.Type())
		}
	default: // booleans, numbers, strings; functions shared
		open(dst).Set(open(src))
	}
}

// overlaps reports memory reached by two pointers or slices that overlap
// without being the same.
func (c *copier) overlaps() error {
	keys := make([]copyKey, 0, len(c.copies))
	for k := range c.copies {
		if k.size > 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b copyKey) int { return cmpUintptr(a.addr, b.addr) })
	for i := 1; i < len(keys); i++ {
		if a, b := keys[i-1], keys[i]; b.addr < a.addr+a.size {
			return fmt.Errorf("deepCopy: %v at %#x (%d bytes) overlaps %v at %#x (%d bytes)", a.t, a.addr, a.size, b.t, b.addr, b.size)
		}
	}
	return nil
}

func cmpUintptr(a, b uintptr) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestDeepCopy checks the small-model helpers' copies: a copy is the
// model a fresh training gives (every field, exported or not: so the same
// file and ID, which writing would take 0.3 s of CPU to show), and what
// one caller does to its copy (another step, a coded image filling the
// lazy tables, a changed field) reaches neither the next copy nor the
// original. It also checks deepCopy on values it
// must keep sharing (a slice and a pointer reached twice, a cycle) and on
// ones it must refuse.
func TestDeepCopy(t *testing.T) {
	step := func(o *TrainOptions) { o.Patch, o.Step = 3, 12 }
	fresh, err := trainSmall(smallOptions(step))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range fresh.Channels { // as cachedTrain's original
		c.loadFast()
	}
	a, before := smallModel(t, step), smallModel(t, step)
	if !reflect.DeepEqual(a, fresh) {
		t.Fatal("a copy of the small step model differs from a freshly trained one")
	}
	if err := a.SetStep(20); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Stepped(7); err != nil {
		t.Fatal(err)
	}
	if err := Encode(io.Discard, testimages.Texture(40, 30, 2), a, nil); err != nil {
		t.Fatal(err)
	}
	a.Channels[0].Centre[0]++
	a.Channels[0].PCA.Mean[0] = -1
	a.Channels[0].PCA.Basis.Set(0, 0, 2)
	after := smallModel(t, step)
	if reflect.DeepEqual(a, fresh) {
		t.Fatal("the changes to a copy changed nothing")
	}
	for _, m := range []*Model{before, after} {
		if !reflect.DeepEqual(m, fresh) {
			t.Fatal("a change to one copy of the small step model reached another copy")
		}
	}

	// Sharing and cycles kept.
	type node struct {
		next   *node
		xs, ys []float64
		p, q   *float64
		m      map[string][]float64
		any    any
	}
	n := &node{xs: []float64{1, 2, 3}, p: new(float64)}
	n.next, n.ys, n.q, n.any = n, n.xs[:2], n.p, n.p
	n.m = map[string][]float64{"x": n.xs}
	c, err := deepCopy(n)
	if err != nil {
		t.Fatal(err)
	}
	c.ys[0], *c.p = 9, 9
	if c.next != c || c.xs[0] != 9 || *c.q != 9 || c.m["x"][0] != 9 || *c.any.(*float64) != 9 {
		t.Errorf("the copy does not share as the original: %+v", c)
	}
	if n.xs[0] != 1 || *n.p != 0 || len(c.ys) != 2 || cap(c.ys) != 3 {
		t.Errorf("the copy shares memory with the original, or lost a length: %+v, %+v", n, c)
	}
	// Refused: overlapping memory whose copies would no longer share it,
	// and channels.
	for _, v := range []*node{
		{xs: n.xs, ys: n.xs[1:]},
		{xs: n.xs, p: &n.xs[2]},
		{any: make(chan int)},
	} {
		if _, err := deepCopy(v); err == nil {
			t.Errorf("deepCopy of %+v: no error", v)
		}
	}
}
