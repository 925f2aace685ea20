package codec

import "fmt"

// The encoder's effort levels (Options.Effort): how much of its search
// the encoder runs. Every level writes files today's decoder reads, in the
// same format version; a lower level trades some rate–distortion for CPU.
const (
	// MinEffort is the fastest level.
	MinEffort = 1
	// MaxEffort is the full search, the default (Options.Effort 0): the
	// files of earlier encoders, byte for byte.
	MaxEffort = 3
	// DefaultEffort is the level of Options.Effort 0.
	DefaultEffort = MaxEffort
)

// effortPlan is what the encoder searches at an effort level.
type effortPlan struct {
	// deblockEvery: the deblocking strength search (8×8 and larger
	// patches) visits one group of block rows in deblockEvery (1: every
	// row, exact).
	deblockEvery int
	// gainEvery: the grey loop filter's gain (whether to keep the fitted
	// filter) over one row in gainEvery.
	gainEvery int
	// newton: the fast path's Newton step toward the exact projection
	// after the table's interpolation (fastScratch.interp).
	newton bool
	// refine: the rate–distortion refinement of the leading cells
	// (refineNearest) in the entropy-constrained mode, of the first
	// channel (grey, or the luma); refineChroma: of the others.
	refine, refineChroma bool
	// rateTolerance: the rate search (StepForRate, --bpp) stops within
	// this share of the target.
	rateTolerance float64
}

// lowRateTolerance is the rate search's tolerance at MinEffort: 5 %, the
// distance from the target at which spca encode --bpp warns; with 2 % a
// batch of the 12 kodim13-24 (grey, d8b, --bpp 0.25 to 2) took 1.7 probes
// an image, with 5 % 1.2.
const lowRateTolerance = 0.05

// fullEffort is the plan of MaxEffort.
var fullEffort = effortPlan{deblockEvery: 1, gainEvery: 1, newton: true, refine: true, refineChroma: true, rateTolerance: rateTolerance}

// planOf returns the plan of effort (0: DefaultEffort), or an error
// naming the range. The levels, measured on kodim13-24 (grey with d8b,
// colour with c8b) and the 8 grey crops: BD-rates against the full
// search over codec eval --rd's 7 steps (0.5-4× the model's), PSNR /
// SSIM, and the CPU of a batch encode of the 12 (README, "Encoder
// effort"):
//   - 3: the full search.
//   - 2: no Newton step where the interpolation holds (interpHolds), the
//     deblocking search on a quarter of the block rows, the grey loop
//     filter's gain on every other row: grey +0.03 / -0.02 %, crops
//     +0.18 / +0.20 %, colour +0.24 / +0.02 %; 10-16 % less CPU.
//   - 1: 2 without the refinement of the grey or luma cells (the chroma
//     channels keep it), the deblocking search on an eighth of the rows,
//     the rate search within 5 %: grey +0.98 / +1.06 %, crops +2.77 /
//     +2.04 %, colour +0.91 / +1.16 %; 20-25 % less CPU. Without the
//     Newton step the refinement moves back most cells the
//     interpolation misses; without both they stay: colour without any
//     refinement +5.23 / +1.37 % (the luma's kept instead: +4.61 /
//     +0.21 %), for 0.87 of level 2's CPU where the chroma's refinement
//     takes 0.90.
//
// Not taken: the loop filter left out (+1.1-1.3 % on kodim13, +7.4 % by
// PSNR on a crop), and the refinement alone left out with the Newton
// step kept (colour +1.28 / +1.31 %, grey +0.43 / +0.95 % for 0.83 and
// 0.86 of the CPU: little faster than level 2).
func planOf(effort int) (effortPlan, error) {
	p := fullEffort
	switch effort {
	case 0, MaxEffort:
	case 2:
		p.deblockEvery, p.gainEvery, p.newton = 4, 2, false
	case MinEffort:
		// refineChroma stays: see above.
		p.deblockEvery, p.gainEvery, p.newton, p.refine = 8, 2, false, false
		p.rateTolerance = lowRateTolerance
	default:
		return p, fmt.Errorf("codec: effort %d out of range (%d to %d, 0 for the default %d)", effort, MinEffort, MaxEffort, DefaultEffort)
	}
	return p, nil
}
