package figures

import (
	"fmt"
	"image"
	"image/color"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/vg"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/testimages"
)

func (r *run) adaptation() (*Figure, error) {
	// Many small training scenes: the variety of surfaces matters more
	// than pixels (as in the adapt package's tests).
	nScenes, size := pick(r, 300, 60), 32
	trainA, trainB := testimages.SceneSet(nScenes, size, size*3/4, r.cfg.Seed)
	testSize := pick(r, 192, 96)
	testA, testB := testimages.Scene(testSize, testSize, testimages.SceneSeed(r.cfg.Seed+1, 0))
	o := adapt.DefaultOptions()
	o.Samples = pick(r, 20000, 4000)
	o.Seed = r.cfg.Seed
	o.SPCA.Seed = r.cfg.Seed
	o.WhiteA, o.WhiteB = testimages.SceneWhites()
	m, err := adapt.Train(trainA, trainB, &o)
	if err != nil {
		return nil, err
	}
	r.progress("train", 1, 3)
	methods := []adapt.Method{adapt.SPCA, adapt.PCAWhitening, adapt.GrayWorld, adapt.Bradford, adapt.Uncorrected}
	ev, err := adapt.Evaluate(m, []image.Image{testA}, []image.Image{testB},
		adapt.EvalOptions{Methods: methods, MaxPixels: pick(r, 20000, 4000), Seed: r.cfg.Seed})
	if err != nil {
		return nil, err
	}
	r.progress("evaluate", 2, 3)
	data := fmt.Sprintf("generated spectral scenes (testimages.SceneSet): %d of %d×%d to train, one held-out %d×%d scene to test", nScenes, size, size*3/4, testSize, testSize)
	t := Table{
		Name: "CIEDE2000 between the corrected B image and the A image",
		Caption: fmt.Sprintf("Mean ΔE00 over the test scene's pixels (%d evaluated) and over its darkest quarter in B (shadows), and the distance between the L* distributions "+
			"(Wasserstein-1, L* units). Bradford is an oracle given the true illuminants. The seed shows this experiment qualitatively only.", ev.Pixels),
		Columns: []string{"mean ΔE00", "mean ΔE00, shadows", "L* distribution distance"},
	}
	for _, mr := range ev.Methods {
		t.Rows = append(t.Rows, Row{Label: mr.Method, Data: data, Ours: []float64{mr.All.Mean, mr.Shadow.Mean, mr.LightnessW1}, Seed: seedVals(none, none, none)})
	}
	c := newCanvas(3, 3, vg.Inch*3.2, vg.Inch*3.3)
	show := []struct {
		title  string
		method adapt.Method
		img    image.Image
	}{
		{"A: D65", -1, testA}, {"B: illuminant A, more shadow", -1, testB},
		{"SPCA", adapt.SPCA, nil},
		{"PCA + whitening", adapt.PCAWhitening, nil},
		{"Gray world", adapt.GrayWorld, nil},
		{"Bradford (oracle)", adapt.Bradford, nil},
	}
	corrected := map[adapt.Method]*mat.Dense{}
	sampleB, err := adapt.SampleLMS([]image.Image{testB}, 1500, r.cfg.Seed)
	if err != nil {
		return nil, err
	}
	sampleA, err := adapt.SampleLMS([]image.Image{testA}, 1500, r.cfg.Seed)
	if err != nil {
		return nil, err
	}
	for k, s := range show {
		img := s.img
		title := s.title
		if img == nil {
			mp, err := m.Mapper(s.method)
			if err != nil {
				return nil, err
			}
			img, err = adapt.ApplyExact(testB, mp)
			if err != nil {
				return nil, err
			}
			if res := ev.Result(s.method); res != nil {
				title = fmt.Sprintf("%s, ΔE00 %.1f", title, res.All.Mean)
			}
			if s.method == adapt.SPCA || s.method == adapt.PCAWhitening {
				rows, _ := sampleB.Dims()
				src := make([]colorspace.LMS, rows)
				for i := range src {
					src[i] = colorspace.LMS{sampleB.At(i, 0), sampleB.At(i, 1), sampleB.At(i, 2)}
				}
				dst := make([]colorspace.LMS, rows)
				if err := mp.MapLMS(dst, src); err != nil {
					return nil, err
				}
				out := mat.NewDense(rows, 3, nil)
				for i := range dst {
					out.SetRow(i, dst[i][:])
				}
				corrected[s.method] = out
			}
		}
		p := c.panel(k/3, k%3, title, "", "")
		c.picture(p, img)
	}
	series := []struct {
		name string
		x    *mat.Dense
	}{{"A", sampleA}, {"B", sampleB}, {"B by SPCA", corrected[adapt.SPCA]}, {"B by PCA + whitening", corrected[adapt.PCAWhitening]}}
	cols := []color.RGBA{colBlue, colOrange, colGreen, colPurple}
	for k, proj := range [][2]int{{0, 1}, {0, 2}} {
		names := []string{"L", "M", "S"}
		p := c.panel(2, k, "Colour manifolds, "+names[proj[0]]+"–"+names[proj[1]], names[proj[0]]+" (D65 white = 1)", names[proj[1]]+" (D65 white = 1)")
		for j, s := range series {
			xs, ys := firstRows(s.x, 1500, proj[0], proj[1])
			c.scatter(p, s.name, s.name, xs, ys, cols[j], vg.Points(1.2))
		}
		headroom(p, 0.35)
	}
	files, err := c.save(r.cfg.Out, "adaptation")
	if err != nil {
		return nil, err
	}
	r.progress("images", 3, 3)
	res := func(mth adapt.Method) float64 {
		if v := ev.Result(mth); v != nil {
			return v.Shadow.Mean
		}
		return 0
	}
	return &Figure{
		Title: "Colour adaptation by corresponding pairs (seed Fig. \"adaptation\")",
		Files: files,
		Summary: fmt.Sprintf("A scene rendered under D65 (A) and under illuminant A with lower light and more shadow (B) (%s). SPCA (γ = 1) is fitted on the LMS colours "+
			"of each environment and B's colours are mapped to R_A⁻¹(R_B(x)); PCA + whitening matches means and covariances, gray world scales the cones, Bradford "+
			"uses the true whites. The bottom panels show the colour manifolds of A (blue) and B (orange) and B's colours after SPCA (green) and PCA + whitening (purple). "+
			"In the shadows (darkest quarter of B) the mean ΔE00 is %.1f for SPCA, %.1f for PCA + whitening, %.1f for gray world and %.1f for Bradford; "+
			"the table also gives the error over all pixels, where per-pixel linear maps can do better than a transport of the whole distribution.",
			data, res(adapt.SPCA), res(adapt.PCAWhitening), res(adapt.GrayWorld), res(adapt.Bradford)),
		Tables: []Table{t},
	}, nil
}
