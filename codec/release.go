package codec

// ReleaseBuffers drops the per-image buffers that encoders and decoders
// keep between images for the life of the process (at most maxKept per
// kind, each up to maxKeptValues values: 100-200 MB after coding 4-Mpixel
// images). A batch tool never needs it; a long-lived program that codes
// a few large images and then does other work calls it to give that
// memory back to the collector. Coding after it works as before, only the
// next image allocates its buffers afresh. It is safe for concurrent use.
func ReleaseBuffers() {
	for _, p := range []*keptPool{&planeBuffers, &lumaBuffers, &colourBuffers, &recBuffers, &deblockScratches, &loopScratches, &encodeScratches, &floatBuffers, &cellBuffers, &indexBuffers} {
		p.drain()
	}
	dropSpare()
}

// drain forgets every kept value.
func (p *keptPool) drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.kept)
	p.kept = p.kept[:0]
}
