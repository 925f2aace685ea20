package figures

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Colours of the series, readable on white and in grey print.
var (
	colBlue   = color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	colOrange = color.RGBA{0xe6, 0x6b, 0x00, 0xff}
	colGreen  = color.RGBA{0x2c, 0xa0, 0x2c, 0xff}
	colRed    = color.RGBA{0xd6, 0x27, 0x28, 0xff}
	colPurple = color.RGBA{0x94, 0x67, 0xbd, 0xff}
	colBrown  = color.RGBA{0x8c, 0x56, 0x4b, 0xff}
	colGrey   = color.RGBA{0xa0, 0xa0, 0xa0, 0xff}
	colLight  = color.RGBA{0xc8, 0xc8, 0xc8, 0xff}
	colBlack  = color.RGBA{0x20, 0x20, 0x20, 0xff}
	palette   = []color.Color{colBlue, colOrange, colGreen, colRed, colPurple, colBrown, colBlack}
)

// canvas is a figure under construction: a grid of plots and the data of
// every plotted series, written as CSV beside the images.
type canvas struct {
	rows, cols int
	plots      [][]*plot.Plot
	pw, ph     vg.Length // size of one panel
	csv        bytes.Buffer
}

func newCanvas(rows, cols int, pw, ph vg.Length) *canvas {
	c := &canvas{rows: rows, cols: cols, pw: pw, ph: ph}
	c.plots = make([][]*plot.Plot, rows)
	for i := range c.plots {
		c.plots[i] = make([]*plot.Plot, cols)
	}
	c.csv.WriteString("panel,series,x,y,z\n")
	return c
}

// panel creates the plot at (i, j) with a title and axis labels.
func (c *canvas) panel(i, j int, title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	p.X.Tick.Label.Font.Size = vg.Points(10)
	p.Y.Tick.Label.Font.Size = vg.Points(10)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.Top = true
	c.plots[i][j] = p
	return p
}

// record appends a series to the CSV.
func (c *canvas) record(p *plot.Plot, series string, xs, ys, zs []float64) {
	name := p.Title.Text
	for k := range xs {
		fmt.Fprintf(&c.csv, "%s,%s,", csvText(name), csvText(series))
		csvFloat(&c.csv, xs[k])
		c.csv.WriteByte(',')
		csvFloat(&c.csv, ys[k])
		c.csv.WriteByte(',')
		if zs != nil {
			csvFloat(&c.csv, zs[k])
		}
		c.csv.WriteByte('\n')
	}
}

func csvText(s string) string {
	for _, r := range s {
		if r == ',' || r == '"' || r == '\n' {
			return `"` + bytesReplace(s, `"`, `""`) + `"`
		}
	}
	return s
}

func bytesReplace(s, old, new string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte(old), []byte(new)))
}

func xys(xs, ys []float64) plotter.XYs {
	pts := make(plotter.XYs, len(xs))
	for i := range xs {
		pts[i].X, pts[i].Y = xs[i], ys[i]
	}
	return pts
}

// scatter adds points of one colour; legend "" leaves it out of the legend.
func (c *canvas) scatter(p *plot.Plot, series, legend string, xs, ys []float64, col color.Color, radius vg.Length) {
	s, err := plotter.NewScatter(xys(xs, ys))
	if err != nil {
		panic(err)
	}
	s.GlyphStyle.Color = col
	s.GlyphStyle.Radius = radius
	s.GlyphStyle.Shape = draw.CircleGlyph{}
	p.Add(s)
	if legend != "" {
		p.Legend.Add(legend, s)
	}
	c.record(p, series, xs, ys, nil)
}

// scatterColors adds points with one colour each; zs is recorded in the
// CSV (the value the colour encodes).
func (c *canvas) scatterColors(p *plot.Plot, series string, xs, ys, zs []float64, cols []color.Color, radius vg.Length) {
	s, err := plotter.NewScatter(xys(xs, ys))
	if err != nil {
		panic(err)
	}
	s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		return draw.GlyphStyle{Color: cols[i], Radius: radius, Shape: draw.CircleGlyph{}}
	}
	p.Add(s)
	c.record(p, series, xs, ys, zs)
}

// line adds a polyline; legend "" leaves it out of the legend.
func (c *canvas) line(p *plot.Plot, series, legend string, xs, ys []float64, col color.Color, width vg.Length, dashed bool) {
	l, err := plotter.NewLine(xys(xs, ys))
	if err != nil {
		panic(err)
	}
	l.LineStyle.Color = col
	l.LineStyle.Width = width
	if dashed {
		l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l)
	if legend != "" {
		p.Legend.Add(legend, l)
	}
	c.record(p, series, xs, ys, nil)
}

// linePoints adds a polyline with point markers.
func (c *canvas) linePoints(p *plot.Plot, series, legend string, xs, ys []float64, col color.Color, shape draw.GlyphDrawer) {
	l, s, err := plotter.NewLinePoints(xys(xs, ys))
	if err != nil {
		panic(err)
	}
	l.LineStyle.Color = col
	l.LineStyle.Width = vg.Points(1.5)
	s.GlyphStyle.Color = col
	s.GlyphStyle.Radius = vg.Points(3)
	s.GlyphStyle.Shape = shape
	p.Add(l, s)
	if legend != "" {
		p.Legend.Add(legend, l, s)
	}
	c.record(p, series, xs, ys, nil)
}

// picture shows an image in a panel with its pixel coordinates as axes.
func (c *canvas) picture(p *plot.Plot, img image.Image) {
	b := img.Bounds()
	p.Add(plotter.NewImage(img, 0, 0, float64(b.Dx()), float64(b.Dy())))
	p.X.Min, p.X.Max = 0, float64(b.Dx())
	p.Y.Min, p.Y.Max = 0, float64(b.Dy())
	p.HideAxes()
}

// equalAxes makes one data unit as long on both axes of p, given the
// panel's aspect, by widening the shorter range.
func equalAxes(p *plot.Plot, aspect float64) {
	dx, dy := p.X.Max-p.X.Min, p.Y.Max-p.Y.Min
	if dx <= 0 || dy <= 0 {
		return
	}
	if dx/dy < aspect {
		w := dy * aspect
		mid := (p.X.Min + p.X.Max) / 2
		p.X.Min, p.X.Max = mid-w/2, mid+w/2
	} else {
		h := dx / aspect
		mid := (p.Y.Min + p.Y.Max) / 2
		p.Y.Min, p.Y.Max = mid-h/2, mid+h/2
	}
}

// save writes name.png, name.svg and name.csv to dir and returns their
// names.
func (c *canvas) save(dir, name string) ([]string, error) {
	w := c.pw * vg.Length(c.cols)
	h := c.ph * vg.Length(c.rows)
	tiles := draw.Tiles{
		Rows: c.rows, Cols: c.cols,
		PadX: vg.Points(8), PadY: vg.Points(8),
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8),
	}
	drawAll := func(dc draw.Canvas) {
		cs := plot.Align(c.plots, tiles, dc)
		for i := range c.plots {
			for j, p := range c.plots[i] {
				if p != nil {
					p.Draw(cs[i][j])
				}
			}
		}
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
	drawAll(draw.New(img))
	var pngBuf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&pngBuf); err != nil {
		return nil, err
	}
	svg := vgsvg.New(w, h)
	dc := draw.New(svg)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	drawAll(dc)
	var svgBuf bytes.Buffer
	if _, err := svg.WriteTo(&svgBuf); err != nil {
		return nil, err
	}
	files := []string{name + ".png", name + ".svg", name + ".csv"}
	for k, b := range [][]byte{pngBuf.Bytes(), svgBuf.Bytes(), c.csv.Bytes()} {
		if err := writeFile(dir, files[k], b); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// linspace returns n values from a to b.
func linspace(a, b float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		if n == 1 {
			out[i] = a
		} else {
			out[i] = a + (b-a)*float64(i)/float64(n-1)
		}
	}
	return out
}

// hsv converts hue (0..1), saturation and value to a colour.
func hsv(h, s, v float64) color.Color {
	h = math.Mod(h, 1) * 6
	i := math.Floor(h)
	f := h - i
	p, q, t := v*(1-s), v*(1-s*f), v*(1-s*(1-f))
	var r, g, b float64
	switch int(i) {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	return color.RGBA{uint8(255 * r), uint8(255 * g), uint8(255 * b), 255}
}

// responseColour encodes two responses in [0, 1] as in the seed's swiss
// roll figure: r1 as a hue from red to blue, r2 as brightness.
func responseColour(r1, r2 float64) color.Color {
	r1 = math.Max(0, math.Min(1, r1))
	r2 = math.Max(0, math.Min(1, r2))
	return hsv(0.67*r1, 0.9, 0.35+0.65*r2)
}

// headroom extends the top of p's y range by frac of its height, to make
// room for the legend.
func headroom(p *plot.Plot, frac float64) {
	p.Y.Max += frac * (p.Y.Max - p.Y.Min)
}

// newImagePlot places an image over the data rectangle ext = (xmin, xmax,
// ymin, ymax).
func newImagePlot(img image.Image, ext [4]float64) plot.Plotter {
	return plotter.NewImage(img, ext[0], ext[2], ext[1], ext[3])
}

// powerTicks marks the powers of ten of a log axis, labelled 1e-3 etc.
type powerTicks struct{}

func (powerTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	step := 1
	if hi-lo > 6 {
		step = 2
	}
	for e := lo; e <= hi; e++ {
		v := math.Pow(10, float64(e))
		if v < min*(1-1e-9) || v > max*(1+1e-9) {
			continue
		}
		label := ""
		if (e-lo)%step == 0 {
			label = fmt.Sprintf("1e%d", e)
			if e == 0 {
				label = "1"
			}
		}
		ts = append(ts, plot.Tick{Value: v, Label: label})
	}
	return ts
}
