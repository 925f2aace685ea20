package pngfast

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// zlibStreamsScript writes streams of zlib itself (Python's module):
// data of sizes about the inflate kernel's margins and steps (random,
// zeros, periods 1-33, smooth rows, runs and copies at every distance),
// every level, the strategies Go's compress/flate has no counterpart of
// (filtered, Huffman only, RLE, fixed codes) and windows of 512 B, 4 KB
// and 32 KB, as records: label, data and stream lengths (uint32 LE),
// then the three.
const zlibStreamsScript = `import zlib, random, struct, sys
random.seed(21)
def datas():
    yield "empty", b""
    yield "one", b"\x07"
    for n in [2, 3, 17, 258, 259, 320, 321, 1000, 4096, 65536, 70001]:
        yield f"random{n}", bytes(random.randrange(256) for _ in range(n))
        yield f"zeros{n}", bytes(n)
        for p in [1, 2, 3, 7, 8, 9, 16, 17, 33]:
            unit = bytes(random.randrange(256) for _ in range(p))
            yield f"period{p}_{n}", (unit * (n // p + 1))[:n]
        row, v = [], 128
        for i in range(n):
            v = (v + random.choice([-2, -1, 0, 0, 0, 1, 2])) & 255
            row.append(v if i % 97 else 1)
        yield f"smooth{n}", bytes(row)
        out = bytearray()
        while len(out) < n:
            k = random.randrange(1, 600)
            if random.random() < 0.5:
                out += bytes([random.randrange(256)]) * k
            elif random.random() < 0.5 and len(out) > 0:
                d = random.randrange(1, min(len(out), 32768) + 1)
                for _ in range(k):
                    out.append(out[-d])
            else:
                out += bytes(random.randrange(256) for _ in range(k))
        yield f"mixed{n}", bytes(out[:n])
strategies = [("default", zlib.Z_DEFAULT_STRATEGY), ("filtered", zlib.Z_FILTERED), ("huffman", zlib.Z_HUFFMAN_ONLY), ("rle", zlib.Z_RLE), ("fixed", zlib.Z_FIXED)]
f = open(sys.argv[1], "wb")
for name, d in datas():
    for sname, s in strategies:
        for level in ([0, 1, 6, 9] if len(d) > 10000 else range(10)):
            for wbits in [9, 12, 15]:
                c = zlib.compressobj(level, zlib.DEFLATED, wbits, 9 if level % 2 else 8, s)
                z = c.compress(d) + c.flush()
                assert zlib.decompress(z) == d
                label = f"{name} {sname} L{level} w{wbits}".encode()
                f.write(struct.pack("<III", len(label), len(d), len(z)) + label + d + z)
`

// TestInflateZlibStreams (SPCA_LONG=1, python3 on the PATH) inflates
// streams written by zlib itself (zlibStreamsScript: 19,410 of them),
// with the kernel and without: the data, into a buffer of their length
// inside a larger one whose bytes after it stay untouched, and into a
// buffer too short for them (an error, the bytes after it untouched).
func TestInflateZlibStreams(t *testing.T) {
	if os.Getenv("SPCA_LONG") == "" {
		t.Skip("SPCA_LONG=1 inflates streams written by Python's zlib")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	file := filepath.Join(t.TempDir(), "streams")
	if out, err := exec.Command("python3", "-c", zlibStreamsScript, file).CombinedOutput(); err != nil {
		t.Fatalf("python3: %v: %s", err, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	defer func(k bool) { hasBMI2 = k }(hasBMI2)
	const guard = 400
	guarded := func(n int) []byte { return bytes.Repeat([]byte{0xa5}, n+guard) }
	untouched := func(buf []byte, n int) bool { return bytes.Equal(buf[n:], bytes.Repeat([]byte{0xa5}, guard)) }
	streams := 0
	for len(b) > 0 {
		ll, ld, lz := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:])
		b = b[12:]
		label, d, z := string(b[:ll]), b[ll:ll+ld], b[ll+ld:ll+ld+lz]
		b = b[ll+ld+lz:]
		for _, on := range []bool{hasBMI2, false} {
			hasBMI2 = on
			var f inflater
			buf := guarded(len(d))
			if err := f.inflate(z, buf[:len(d):len(d)]); err != nil || !bytes.Equal(buf[:len(d)], d) || !untouched(buf, len(d)) {
				t.Fatalf("%s (kernel %v): %v, data equal %v, bytes after kept %v", label, on, err, bytes.Equal(buf[:len(d)], d), untouched(buf, len(d)))
			}
			if len(d) == 0 {
				continue
			}
			short := len(d) - 1 - len(d)/3
			buf = guarded(short)
			if err := f.inflate(z, buf[:short:short]); err == nil || !untouched(buf, short) {
				t.Fatalf("%s (kernel %v) into %d of its %d bytes: %v, bytes after kept %v", label, on, short, len(d), err, untouched(buf, short))
			}
		}
		streams++
	}
	if streams < 10000 {
		t.Fatalf("%d streams, want more than 10,000", streams)
	}
}
