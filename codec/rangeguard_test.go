package codec

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/spcalab/spca/internal/selfexec"
)

// TestProbabilityRange proves, over every state an estimate can reach
// from arModel.reset by adapt (whatever the bits, so whatever a file's
// bytes), that a probability stays within [1, 4095]: then, with the
// range at least arTopValue (2^24) before a bit, both of its parts are at
// least 2^12 (bound = (range>>12)·p >= 2^12; range − bound >= range −
// (range>>12)·4095 >= range>>12), the range is never 0, and every
// normalisation, the encoder's and the decoder's, ends within two bytes.
func TestProbabilityRange(t *testing.T) {
	for _, shift := range []uint8{arAdapt, arAdaptFast, arAdaptSlow} {
		seen := map[uint16]bool{arProbInit: true}
		todo := []uint16{arProbInit}
		for len(todo) > 0 {
			a := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			for _, mask := range []uint16{0, 0xffff} {
				p := arProb{a, a}
				p.adapt(mask, shift, shift)
				if p.a < 1 || p.a > 1<<arProbBits-1 {
					t.Fatalf("shift %d: estimate %d -> %d after a bit %d", shift, a, p.a, mask&1)
				}
				if !seen[p.a] {
					seen[p.a] = true
					todo = append(todo, p.a)
				}
			}
		}
		t.Logf("shift %d: %d estimates reachable", shift, len(seen))
	}
	// The extremes of the two parts of the range.
	for _, rng := range []uint32{arTopValue, arTopValue + 4095, 1<<32 - 1} {
		for _, p := range []uint32{1, 1<<arProbBits - 1} {
			bound := (rng >> arProbBits) * p
			if bound < 1<<arProbBits || rng-bound < 1<<arProbBits || rng-bound > rng {
				t.Fatalf("range %#x, probability %d: parts %d and %d", rng, p, bound, rng-bound)
			}
		}
	}
}

// TestDecoderRangeHostile decodes bits of every kind from hostile
// streams (empty, zeros, 0xff, random) with the adaptive probabilities:
// the range stays at least arTopValue after each bit, and the decoder
// reads at most two bytes a bit (and zeros past the end of the stream).
func TestDecoderRangeHostile(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 10))
	random := make([]byte, 5000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	ff := []byte(strings.Repeat("\xff", 300))
	for _, in := range [][]byte{nil, {0}, make([]byte, 300), ff, random} {
		for _, dual := range []bool{false, true} {
			d := newRangeDecoder(in, dual)
			m := newARModel(8)
			devs := make([]uint8, 8)
			bits := 0
			for n := 0; n < 20000; n++ {
				switch n % 4 {
				case 0:
					d.bit(&m.flag[n%contexts][n%arBusy])
					bits++
				case 1:
					d.direct()
					bits++
				case 2:
					if _, ok := d.unaryExpGolomb(&m.count[n%arActivity], &m.countExp); !ok {
						bits++ // a too long code is an error, not a loop
					}
					bits += arMaxUnary + 2*arMaxExpLen
				default:
					if _, _, err := d.run(m, n%8, 8, devs, devs, n%arBusy); err != nil && !strings.Contains(err.Error(), "too long") {
						t.Fatal(err)
					}
					bits += 8 * (arMaxUnary + 2 + 2*arMaxExpLen)
				}
				if d.rng < arTopValue {
					t.Fatalf("range %#x after call %d", d.rng, n)
				}
			}
			if d.pos > 5+2*bits {
				t.Fatalf("%d bytes read for at most %d bits", d.pos, bits)
			}
		}
	}
}

// TestZeroRangeFails checks that a broken model, a probability of 0 (as
// arModel.reset leaving one unset would make), fails the encoder with a
// panic naming it, instead of a loop for ever writing bytes (which it
// did), and so does a negative value to code: each case runs in a child
// process, which gives up if it hangs.
func TestZeroRangeFails(t *testing.T) {
	cases := map[string]func(){
		"bit": func() { newRangeEncoder(false).bit(&arProb{}, 0) },
		"value": func() {
			var d arDim
			newRangeEncoder(true).value(&d.zero[0][0], &d, 0, 0)
		},
		"sign": func() {
			d := newARModel(1).dims[0]
			d.sign[0] = arProb{}
			newRangeEncoder(true).value(&d.zero[0][0], &d, 0, 3)
		},
		"magnitude": func() {
			d := newARModel(1).dims[0]
			d.mag[0][2] = arProb{}
			newRangeEncoder(true).value(&d.zero[0][0], &d, 0, 3)
		},
		"count": func() {
			m := newARModel(4)
			m.countExp = [arMaxExpLen + 1]arProb{} // reset without its fill
			m.encodeCount(newRangeEncoder(true), 0, 40)
		},
		// Not a zero range: a count of 0 coded as c-1 (stale rest flags
		// did it), whose Exp-Golomb length loop never ended.
		"negative": func() { newARModel(4).encodeCount(newRangeEncoder(true), 0, -1) },
	}
	want := func(name string) string {
		if name == "negative" {
			return "Exp-Golomb code of -1"
		}
		return "range coder's range is 0"
	}
	if name := os.Getenv("SPCA_ZERO_RANGE_CASE"); name != "" {
		// The child: a hung encoder grows its output by ~200 MB/s, so
		// the child gives up after a second.
		done := make(chan struct{})
		go func() {
			cases[name]()
			close(done)
		}()
		select {
		case <-done:
			t.Fatal("returned")
		case <-time.After(time.Second):
			fmt.Fprintln(os.Stderr, "hung")
			os.Exit(3)
		}
	}
	if testing.Short() {
		t.Skip("child processes")
	}
	selfexec.SkipIfUnable(t)
	for name := range cases {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestZeroRangeFails$", "-test.count=1")
			cmd.Env = append(os.Environ(), "SPCA_ZERO_RANGE_CASE="+name)
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil || strings.HasPrefix(string(out), "hung") {
				t.Fatalf("the encoder hung")
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || !strings.Contains(string(out), want(name)) {
				t.Fatalf("want a panic naming the zero range, got %v:\n%.2000s", err, out)
			}
		})
	}
}
