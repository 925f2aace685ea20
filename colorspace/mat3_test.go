package colorspace

import (
	"errors"
	"testing"
)

func TestMat3(t *testing.T) {
	m := Mat3{2, 1, 0, 1, 3, 1, 0, 1, 4}
	n := Mat3{1, 2, 3, 0, 1, 4, 5, 6, 0}
	if got := m.Det(); !near(got, 18, 1e-12) {
		t.Errorf("Det = %v, want 18", got)
	}
	inv, err := m.Inverse()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Mat3{m.Mul(inv), inv.Mul(m)} {
		for i := range p {
			if !near(p[i], Identity3[i], 1e-15) {
				t.Fatalf("m·m⁻¹ = %v", p)
			}
		}
	}
	// Mul composes Apply: (m·n)v = m(n v).
	v := XYZ{0.3, -1.2, 2.5}
	if got, want := m.Mul(n).Apply(v), m.Apply(n.Apply(v)); !near3(got, want, 1e-12) {
		t.Errorf("(m·n)v = %v, m(nv) = %v", got, want)
	}
	if got := n.Mul(Identity3); got != n {
		t.Errorf("n·I = %v", got)
	}
	if got := Diag([3]float64{2, 3, 4}).Apply(XYZ{1, 1, 1}); got != (XYZ{2, 3, 4}) {
		t.Errorf("Diag·1 = %v", got)
	}
	if _, err := (Mat3{1, 2, 3, 2, 4, 6, 0, 0, 1}).Inverse(); !errors.Is(err, ErrSingular) {
		t.Errorf("singular matrix: err = %v", err)
	}
	// Two equal rows whose products round (0.1·0.3): the determinant is
	// exactly 0, as Inverse tests it, on every architecture (fused into
	// FMAs on arm64, m4·m8 − m5·m7 was the product's rounding error).
	rank2 := Mat3{1, 2, 3, 0.1, 0.7, 0.3, 0.1, 0.7, 0.3}
	if got := rank2.Det(); got != 0 {
		t.Errorf("Det of a matrix with two equal rows = %g, want 0", got)
	}
	if _, err := rank2.Inverse(); !errors.Is(err, ErrSingular) {
		t.Errorf("two equal rows: err = %v", err)
	}
	if _, err := (Mat3{}).Inverse(); !errors.Is(err, ErrSingular) {
		t.Errorf("zero matrix: err = %v", err)
	}
}
