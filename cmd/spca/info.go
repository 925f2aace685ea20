package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/classify"
	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/spca"
	"github.com/urfave/cli/v2"
	"gonum.org/v1/gonum/floats"
)

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:  "info",
		Usage: "describe a model file or a coded image",
		UsageText: "spca info FILE [--json]\n\n" +
			"FILE is an SPCA model (spca fit), a codec model (spca codec train), an adaptation model (spca adapt train), " +
			"a classifier (spca classify train) or a coded image (spca encode); its kind is read from its first bytes; - reads standard input. For a coded image, info reads only " +
			"the header: its size, patches, bins, rate and the ID of the codec model that decodes it (compare with the id of codec models).",
		Flags:  []cli.Flag{cliutil.JSONFlag()},
		Action: runInfo,
	}
}

// Kinds of file info describes, as the JSON field "kind" names them.
const (
	kindSPCA  = "spca model"
	kindCodec = "codec model"
	kindAdapt = "adaptation model"
	kindCoded = "coded image"
	kindKNN   = "classifier"
)

// fileHeader is what info gives first for every model file, whatever
// its kind: the version of its format (the word after the magic), its
// size, and the time this run took to load it (what every command that
// uses the model pays before its first input). Empty for an SPCA model
// inside another model.
type fileHeader struct {
	FormatVersion int    `json:"format_version,omitempty"`
	FileBytes     int64  `json:"file_bytes,omitempty"`
	LoadMS        number `json:"load_ms,omitempty"`
}

// spcaInfo is the JSON description of an SPCA model, alone (info of a
// model written by fit) or inside a codec or adaptation model.
type spcaInfo struct {
	Kind string `json:"kind,omitempty"`
	fileHeader
	Dimension         int      `json:"dimension"`
	Gamma             number   `json:"gamma"`
	K                 number   `json:"k"`
	Tau               number   `json:"tau"`
	Q                 number   `json:"q"`
	Origin            string   `json:"origin"`
	OriginPoint       []number `json:"origin_point"`
	Tol               number   `json:"tol"`
	MaxIter           int      `json:"max_iter"`
	Seed              uint64   `json:"seed"`
	Resolution        int      `json:"resolution"`
	MaxReference      int      `json:"max_reference"`
	Bandwidth         number   `json:"bandwidth"`
	Conditioning      number   `json:"conditioning"`
	Neighbours        number   `json:"neighbours"`
	LatticeSize       []int    `json:"lattice_size"`
	Scale             []number `json:"scale"`
	MarginalEntropies []number `json:"marginal_entropies_bits"`
	MaxDistance       number   `json:"max_distance"`
}

// codecInfo is the JSON description of a codec model.
type codecInfo struct {
	Kind   string `json:"kind"`
	ID     string `json:"id"`
	Patch  int    `json:"patch"`
	Color  bool   `json:"color"`
	Chroma string `json:"chroma,omitempty"`
	Gamma  number `json:"gamma"`
	Mode   string `json:"mode"`
	Step   number `json:"step,omitempty"`
	// StepBasis tells, for a model of the entropy-constrained mode,
	// whether its file stores the step basis (codec.Model.StepBasisBytes).
	StepBasis      *bool `json:"step_basis,omitempty"`
	StepBasisBytes int   `json:"step_basis_bytes,omitempty"`
	// Form is "compact" or "fast-load" (codec.Model.FastLoad) for a file
	// in sections (format version 17 and later).
	Form     string             `json:"form,omitempty"`
	Channels []codecChannelInfo `json:"channels"`
	fileHeader
}

type codecChannelInfo struct {
	Name            string    `json:"name"`
	Coefficients    int       `json:"coefficients"`
	SPCACoeffs      int       `json:"spca_coefficients"`
	Bins            []int     `json:"bins"`
	TotalBins       int       `json:"total_bins"`
	TrainingPatches int       `json:"training_patches"`
	SPCA            *spcaInfo `json:"spca,omitempty"`
}

// adaptInfo is the JSON description of an adaptation model.
type adaptInfo struct {
	Kind string `json:"kind"`
	fileHeader
	LUTSize int      `json:"lut_size"` // nodes per axis of the stored LUT, 0: none
	Gains   []number `json:"gains"`
	// Align is the alignment matrix (row-major) applied to B's colours
	// instead of the gains, if the model has one (--align matrix).
	Align []number `json:"align,omitempty"`
	// Alignment is how the alignment was chosen at training (--align
	// auto or matrix; model format 6), absent for older models and
	// --align gains.
	Alignment *alignmentInfo `json:"alignment,omitempty"`
	// HighlightGains are the LMS gains that adapt the SPCA map's output
	// near white to white's output (model format 7), absent for older
	// models.
	HighlightGains []number `json:"highlight_gains,omitempty"`
	SamplesA       int      `json:"samples_a"`
	SamplesB       int      `json:"samples_b"`
	WhiteA         []number `json:"white_a_xyz"`
	WhiteB         []number `json:"white_b_xyz"`
	A              spcaInfo `json:"spca_a"`
	B              spcaInfo `json:"spca_b"`
}

// alignmentInfo is the JSON description of adapt.AlignmentChoice.
type alignmentInfo struct {
	Asked  string `json:"asked"`  // auto or matrix
	Chosen string `json:"chosen"` // gains or matrix
	// Residual is the weighted relative residual of the 3×3 matrix on
	// the training pairs; null when the images were not pairs.
	Residual  *number `json:"residual"`
	Threshold number  `json:"threshold"`
}

// knnInfo is the JSON description of a classifier.
type knnInfo struct {
	Kind string `json:"kind"`
	fileHeader
	Metric    string   `json:"metric"`
	K         int      `json:"k"`
	Samples   int      `json:"samples"`
	Dimension int      `json:"dimension"`
	Labels    []number `json:"labels"`
	Weights   []number `json:"weights,omitempty"`
	// Ratio is spca-tangent's and spca-fisher's elongation of the neighbourhoods.
	Ratio number     `json:"ratio,omitempty"`
	SPCA  []spcaInfo `json:"spca,omitempty"`
}

// codedInfo is the JSON description of a coded image (its header).
type codedInfo struct {
	Kind     string  `json:"kind"`
	Version  int     `json:"version"`
	Model    string  `json:"model_id"`
	Width    int     `json:"width"`
	Height   int     `json:"height"`
	Channels int     `json:"channels"`
	Depth    int     `json:"depth"`
	Patch    int     `json:"patch"`
	Bins     [][]int `json:"bins"`
	Bytes    int64   `json:"bytes"`
	BPP      number  `json:"bpp"`
	Step     number  `json:"step,omitempty"`    // quantiser step, if not the model's
	Deblock  int     `json:"deblock,omitempty"` // deblocking strength (version 5)
	// LoopFilter is the luma loop filter's taps in 1/128 (versions 9
	// and 10; absent where the encoder found it gained nothing).
	LoopFilter []int `json:"loop_filter,omitempty"`
}

func runInfo(c *cli.Context) error {
	args, err := positionals(c, 1, "one FILE, a model or a coded image")
	if errors.Is(err, errHelpShown) {
		return nil
	}
	if err != nil {
		return err
	}
	path := args[0]
	if spooled, cleanup, err := spoolStream(path); err != nil {
		return err
	} else if spooled != "" {
		// The loaders read a file twice (kind, then body; codec models
		// their sections later): a pipe or stdin goes to a temporary
		// file, named in messages as what the user gave.
		defer cleanup()
		shown := path
		if path == stdio {
			shown = "stdin"
		}
		if err := describeFile(c, spooled, shown); err != nil {
			return fail("%s", strings.ReplaceAll(err.Error(), spooled, shown))
		}
		return nil
	}
	return describeFile(c, path, path)
}

// maxSpooled bounds what info copies from a pipe or stdin: larger than
// any model (the codec models of the README are under 100 MB), small
// enough not to fill a disk from an endless stream.
const maxSpooled = 1 << 30

// spoolStream copies path to a temporary file if it is "-" (stdin) or
// not a regular file (a pipe, <(cat m.spca)), and returns the temporary
// file's path and its removal; "" for a regular file or a directory (read
// as given: its error names it).
func spoolStream(path string) (string, func(), error) {
	var r io.Reader = os.Stdin
	if path == stdio && stdinIsTerminal() {
		return "", nil, fail("info: - reads a model from standard input, which is a terminal here: give a FILE, or pipe a model in (cat m.spca | spca info -)")
	}
	if path != stdio {
		st, err := os.Stat(path)
		if err != nil || st.Mode().IsRegular() || st.IsDir() {
			return "", nil, nil
		}
		f, err := os.Open(path)
		if err != nil {
			return "", nil, openError(path, err)
		}
		defer f.Close()
		r = f
	}
	tmp, err := os.CreateTemp("", "spca-info-*")
	if err != nil {
		return "", nil, fail("info: %v", err)
	}
	cleanup := func() { os.Remove(tmp.Name()) }
	// The first bytes first: a stream that is no model nor coded image
	// (cat /dev/zero | spca info -: 1 GiB copied, then refused) is
	// refused from them, as a file would be.
	head := make([]byte, 12)
	k, err := io.ReadFull(r, head)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	var n int64
	if err == nil {
		_, err = tmp.Write(head[:k])
	}
	if _, known := modelKinds[string(head[:min(k, 8)])]; err == nil && k == len(head) && (known || strings.HasPrefix(string(head), codec.Magic)) {
		n, err = io.Copy(tmp, io.LimitReader(r, maxSpooled+1-int64(k)))
	}
	n += int64(k)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		cleanup()
		return "", nil, fail("%s: %v", path, err)
	case n > maxSpooled:
		cleanup()
		return "", nil, fail("%s: more than %d bytes from a pipe, larger than any model: give the file itself", path, maxSpooled)
	}
	return tmp.Name(), cleanup, nil
}

// describeFile prints what info says of the regular file at path, named
// shown.
func describeFile(c *cli.Context, path, shown string) error {
	head, err := readMagic(path)
	if err != nil {
		return err
	}
	magic := head[:min(len(head), 8)]
	var info any
	var rows [][2]string
	var kind string
	var header *fileHeader // set for model files
	start := time.Now()
	switch {
	case magic == spca.ModelMagic:
		model, err := loadModel(path)
		if err != nil {
			return err
		}
		s := describeSPCA(model)
		s.Kind = kindSPCA
		info, rows, header, kind = &s, spcaRows(model), &s.fileHeader, kindSPCA
	case magic == codec.ModelMagic:
		model, err := loadCodecModel(path)
		if err != nil {
			return err
		}
		model.ID() // what a decoder needs before the first file
		loaded := time.Since(start)
		// The rest of the file, read by encoders and training on first
		// use, is checked too (and not counted in the load time).
		if err := model.LoadSections(); err != nil {
			return fail("%s", withPathC(path, err))
		}
		ci, r := describeCodec(model)
		if len(head) == 12 && binary.LittleEndian.Uint32([]byte(head[8:])) >= 17 {
			ci.Form = formName(model.FastLoad())
			form := ci.Form + " (every section compressed with zstd: the smallest file; spca codec repack --fast-load writes the fast-load form)"
			if model.FastLoad() {
				form = ci.Form + " (the sections coding reads stored uncompressed, the SPCA lattices as float32 used in place: faster to load, a larger file; spca codec repack writes the compact form)"
			}
			r = append([][2]string{{"form", form}}, r...)
		}
		ci.LoadMS = number(float64(loaded.Microseconds()) / 1000)
		info, rows, header, kind = &ci, r, &ci.fileHeader, kindCodec
	case magic == adapt.ModelMagic:
		model, err := loadAdaptModel(path)
		if err != nil {
			return err
		}
		ai, r := describeAdapt(model)
		info, rows, header, kind = &ai, r, &ai.fileHeader, kindAdapt
	case magic == classify.ModelMagic:
		cl, err := classify.Load(path)
		if err != nil {
			return fail("%s", withPath(path, err))
		}
		ki, r := describeKNN(cl)
		info, rows, header, kind = &ki, r, &ki.fileHeader, kindKNN
	case strings.HasPrefix(magic, codec.Magic):
		info, rows, err = describeCoded(path)
		if err != nil {
			return err
		}
	default:
		return fail("%s: invalid model file: not an SPCA, codec, adaptation or classifier model, nor a coded image%s", path, otherKind(head))
	}
	if header != nil {
		rows = append(headerRows(path, head, kind, header, time.Since(start)), rows...)
	}
	if c.Bool(flagJSON) {
		if err := cliutil.WriteJSON(c.App.Writer, info); err != nil {
			return fail("info: %v", err)
		}
		return nil
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "file\t%s\n", shown)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	if err := tw.Flush(); err != nil {
		return fail("info: %v", err)
	}
	return nil
}

// modelKinds names the kind of model file of each magic, with the command
// that writes it.
var modelKinds = map[string]string{
	spca.ModelMagic:  "an SPCA model (spca fit)",
	codec.ModelMagic: "a codec model (spca codec train)",
	adapt.ModelMagic: "an adaptation model (spca adapt train)",
	classify.Magic:   "a classifier (spca classify train)",
}

// checkKind returns an error naming the kind of the model file at path
// if it is a model file of another kind than magic's, or a coded image
// (spca transform --model codec.model said "not an SPCA model (bad magic
// number)", not what the file was); nil otherwise, and for anything but
// a regular file, the loader then reporting what else may be wrong.
func checkKind(path, magic string) error {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		// A pipe (--model <(...)) cannot be read twice: the loader
		// reads it and reports what is wrong.
		return nil
	}
	head, err := readMagic(path)
	if err != nil {
		return nil
	}
	kind, ok := modelKinds[head[:min(len(head), 8)]]
	if !ok && strings.HasPrefix(head, codec.Magic) {
		kind, ok = "a coded image (spca encode)", true
	}
	if !ok || strings.HasPrefix(head, magic) {
		return nil
	}
	return fail("%s: invalid model file: this is %s, not %s", path, kind, modelKinds[magic])
}

// readMagic returns the first 12 bytes of the file at path (fewer if it
// is shorter): the magic and, in model files, the version word.
func readMagic(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", openError(path, err)
	}
	defer f.Close()
	b := make([]byte, 12)
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		var pe *fs.PathError
		if errors.As(err, &pe) { // "read DIR: is a directory": the path once
			err = pe.Err
		}
		return "", fail("%s: %v", path, err)
	}
	return string(b[:n]), nil
}

// otherKind says what a file that is no model nor coded image seems to
// be from its first bytes head: an image, a text file (CSV samples, a
// .cube LUT), or "" if neither.
func otherKind(head string) string {
	if head == "" {
		return " (it is empty)"
	}
	for _, m := range []string{"\x89PNG", "\xff\xd8\xff", "GIF8", "II*\x00", "MM\x00*", "BM", "RIFF", "P5", "P6"} {
		if strings.HasPrefix(head, m) {
			return " (it is an image: spca encode codes images with a codec model)"
		}
	}
	if head != "" && !strings.ContainsFunc(head, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == utf8.RuneError }) {
		return " (it is a text file, such as CSV samples or a .cube LUT)"
	}
	return ""
}

// headerRows fills h (the format version, the file size and, unless set,
// the load time) and returns the rows info prints first for a model file
// of the kind: kind, format version, file size, load time.
func headerRows(path, head, kind string, h *fileHeader, loaded time.Duration) [][2]string {
	if h.LoadMS == 0 {
		h.LoadMS = number(float64(loaded.Microseconds()) / 1000)
	}
	version := "unknown"
	if len(head) == 12 {
		v := binary.LittleEndian.Uint32([]byte(head[8:]))
		version = fmt.Sprint(v)
		switch {
		case kind == kindSPCA && v&spca.ExtendedOptions != 0:
			v &^= spca.ExtendedOptions
			version = fmt.Sprintf("%d (with the density options of adaptation models)", v)
		case kind == kindCodec && v == 16:
			version += " (zstd-compressed)"
		case kind == kindCodec && v == 17:
			version += " (sections in zstd frames, read on first use)"
		case kind == kindCodec && v == 18:
			version += " (sections in zstd frames, read on first use, with step bases)"
		}
		h.FormatVersion = int(v)
	}
	load := fmt.Sprintf("%.1f ms", float64(h.LoadMS))
	if kind == kindCodec {
		load += " (read and checked as a decoder reads it, with its ID)"
	}
	rows := [][2]string{{"kind", kind}, {"format version", version}}
	if fi, err := os.Stat(path); err == nil {
		h.FileBytes = fi.Size()
		rows = append(rows, [2]string{"file size", fmt.Sprintf("%d bytes (%.2f MB)", fi.Size(), float64(fi.Size())/1e6)})
	}
	return append(rows, [2]string{"load time", load})
}

func describeSPCA(model *spca.Model) spcaInfo {
	opt := model.Options()
	return spcaInfo{
		Dimension:         model.Dim(),
		Gamma:             number(opt.Gamma),
		K:                 number(opt.K),
		Tau:               number(opt.Tau),
		Q:                 number(opt.Q),
		Origin:            opt.Origin.String(),
		OriginPoint:       numbers(model.Origin()),
		Tol:               number(opt.Tol),
		MaxIter:           opt.MaxIter,
		Seed:              opt.Seed,
		Resolution:        opt.Resolution,
		MaxReference:      opt.MaxReference,
		Bandwidth:         number(opt.Bandwidth),
		Conditioning:      number(opt.Conditioning),
		Neighbours:        number(opt.Neighbours),
		LatticeSize:       model.LatticeSize(),
		Scale:             numbers(model.Scale()),
		MarginalEntropies: numbers(model.MarginalEntropies()),
		MaxDistance:       number(model.MaxDistance()),
	}
}

func spcaRows(model *spca.Model) [][2]string {
	opt := model.Options()
	return [][2]string{
		{"dimension", fmt.Sprint(model.Dim())},
		{"gamma", formatGamma(opt.Gamma)},
		{"k", formatFloat(opt.K)},
		{"tau", formatFloat(opt.Tau)},
		{"q", formatFloat(opt.Q)},
		{"origin", opt.Origin.String() + " at " + formatFloats(model.Origin())},
		{"tol", formatFloat(opt.Tol)},
		{"max-iter", fmt.Sprint(opt.MaxIter)},
		{"seed", fmt.Sprint(opt.Seed)},
		{"resolution", fmt.Sprint(opt.Resolution)},
		{"max-reference", fmt.Sprint(opt.MaxReference)},
		{"bandwidth", formatFloat(opt.Bandwidth)},
		{"conditioning", formatFloat(opt.Conditioning)},
		{"neighbours", formatFloat(opt.Neighbours)},
		{"lattice", latticeText(model.LatticeSize())},
		{"scale", formatFloats(model.Scale())},
		{"marginal entropies", formatFloats(model.MarginalEntropies()) + " bits"},
		{"max distance", formatFloat(model.MaxDistance())},
	}
}

func latticeText(size []int) string { return joinInts(size, " × ") + " nodes" }

// binsText formats bins as "44+9+8+5 = 66", or as the total alone
// beyond maxTableCoefficients (64 terms made 300-character lines).
func binsText(bins []int) string {
	if len(bins) > maxTableCoefficients {
		return fmt.Sprintf("%d over %d coefficients (--json lists them)", sum(bins), len(bins))
	}
	return joinInts(bins, "+") + " = " + fmt.Sprint(sum(bins))
}

func joinInts(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, sep)
}

// spcaSummary is the one-line text description of an SPCA model inside a
// codec or adaptation model.
func spcaSummary(s *spca.Model) string {
	opt := s.Options()
	return fmt.Sprintf("gamma %s, lattice %s, k %s, tau %s, bandwidth %s, conditioning %s, neighbours %s",
		formatGamma(opt.Gamma), latticeText(s.LatticeSize()), formatFloat(opt.K), formatFloat(opt.Tau), formatFloat(opt.Bandwidth),
		formatFloat(opt.Conditioning), formatFloat(opt.Neighbours))
}

// channelNames names the channels of a codec model or coded image.
func channelNames(n int) []string {
	if n == 3 {
		return []string{"Y", "Cb", "Cr"}
	}
	return []string{"luma"}
}

func describeCodec(m *codec.Model) (codecInfo, [][2]string) {
	info := codecInfo{Kind: kindCodec, ID: m.ID().String(), Patch: m.Patch, Color: m.Color, Gamma: number(m.Gamma),
		Mode: "fixed-resolution", Step: number(m.Step)}
	mode := "fixed resolution (the seed's: bins per coefficient, Lloyd-Max beyond SPCA)"
	if m.Step > 0 {
		info.Mode = "entropy-constrained"
		mode = "entropy-constrained, step " + formatFloat(m.Step) + " (dead-zone quantisers)"
	}
	names := channelNames(len(m.Channels))
	channels := strings.Join(names, ", ")
	if m.Color {
		info.Chroma = "4:4:4"
		if m.Subsample {
			info.Chroma = "4:2:0"
		}
		channels += " (chroma " + info.Chroma + ")"
	}
	rows := [][2]string{
		{"id", info.ID},
		{"patch", fmt.Sprintf("%d×%d", m.Patch, m.Patch)},
		{"channels", channels},
		{"gamma", formatGamma(m.Gamma)},
		{"mode", mode},
	}
	if m.Step > 0 {
		n := m.StepBasisBytes()
		has := n > 0
		info.StepBasis, info.StepBasisBytes = &has, n
		basis := "not stored (an older model file): coding or decoding at another step (--step, --bpp) first unfolds the training sample; models spca codec train writes now store it"
		if has {
			basis = fmt.Sprintf("stored, %d bytes (coding or decoding at another step, --step or --bpp, derives its quantisers without unfolding the training sample)", n)
		}
		rows = append(rows, [2]string{"step basis", basis})
	}
	for i, c := range m.Channels {
		name := names[i]
		n := c.TrainingPatches()
		ci := codecChannelInfo{Name: name, Coefficients: c.Dims(), SPCACoeffs: c.Leading(), Bins: c.Bins,
			TotalBins: sum(c.Bins), TrainingPatches: n}
		text := fmt.Sprintf("%d coefficients, SPCA on %d; bins %s; %d training patches", c.Dims(), c.Leading(), binsText(c.Bins), n)
		if c.SPCA != nil {
			s := describeSPCA(c.SPCA)
			ci.SPCA = &s
			text += "; SPCA " + spcaSummary(c.SPCA)
		}
		info.Channels = append(info.Channels, ci)
		rows = append(rows, [2]string{name, text})
	}
	return info, rows
}

func describeAdapt(m *adapt.Model) (adaptInfo, [][2]string) {
	wa := m.WhiteA[:]
	wb := m.WhiteB[:]
	info := adaptInfo{Kind: kindAdapt, SamplesA: m.SamplesA, SamplesB: m.SamplesB, Gains: numbers(m.Gains[:]),
		WhiteA: numbers(wa), WhiteB: numbers(wb), A: describeSPCA(m.A), B: describeSPCA(m.B)}
	lut := "none stored (adapt apply builds it on each run)"
	if m.LUT != nil {
		info.LUTSize = m.LUT.Size
		lut = fmt.Sprintf("%d nodes per axis, stored (adapt apply uses it unless --exact)", m.LUT.Size)
	}
	gains := formatFloats(m.Gains[:]) + " (LMS, mean A / mean B, applied to B's colours)"
	if m.Align != (colorspace.Mat3{}) {
		info.Align = numbers(m.Align[:])
		gains = formatFloats(m.Gains[:]) + " (LMS, mean A / mean B; not applied: the alignment matrix is)"
	}
	rows := [][2]string{
		{"gains", gains},
	}
	if info.Align != nil {
		rows = append(rows, [2]string{"alignment", formatFloats(m.Align[:]) + " (3×3 LMS matrix, row-major, fitted on the training pairs, applied to B's colours; --align matrix, or auto's choice)"})
	}
	if ch := m.AlignChoice; ch != nil {
		info.Alignment = &alignmentInfo{Asked: ch.Asked.String(), Chosen: ch.Chosen.String(), Threshold: number(ch.Threshold)}
		if !math.IsNaN(ch.Residual) {
			r := number(ch.Residual)
			info.Alignment.Residual = &r
		}
		rows = append(rows, [2]string{"alignment choice", ch.String()})
	}
	if g := m.HighlightGains; g != ([3]float64{}) {
		info.HighlightGains = numbers(g[:])
		rows = append(rows, [2]string{"highlight gains", formatFloats(g[:]) + " (LMS, adapt the SPCA map's output near white to white's output)"})
	}
	rows = append(rows, [][2]string{
		{"SPCA LUT", lut},
		{"environment A", fmt.Sprintf("%d training colours, white XYZ %s; SPCA %s", m.SamplesA, formatFloats(wa), spcaSummary(m.A))},
		{"environment B", fmt.Sprintf("%d training colours, white XYZ %s; SPCA %s", m.SamplesB, formatFloats(wb), spcaSummary(m.B))},
	}...)
	return info, rows
}

func describeKNN(c *classify.Classifier) (knnInfo, [][2]string) {
	labels := c.Values
	if labels == nil {
		for i := range c.Classes() {
			labels = append(labels, float64(i))
		}
	}
	info := knnInfo{Kind: kindKNN, Metric: c.Metric.String(), K: c.K, Samples: c.Samples(), Dimension: c.Dim(),
		Labels: numbers(labels), Weights: numbers(c.Weights), Ratio: number(c.Ratio)}
	rows := [][2]string{
		{"metric", c.Metric.String()},
		{"k", fmt.Sprint(c.K)},
		{"samples", fmt.Sprintf("%d of dimension %d", c.Samples(), c.Dim())},
		{"labels", fmt.Sprintf("%d classes: %s", c.Classes(), formatFloats(labels))},
	}
	if c.Weights != nil {
		var kept []int
		for i, w := range c.Weights {
			if w != 0 {
				kept = append(kept, i+1)
			}
		}
		rows = append(rows, [2]string{"response dimensions", joinInts(kept, ",")})
	}
	if c.Metric == classify.SPCATangent || c.Metric == classify.SPCAFisher {
		rows = append(rows, [2]string{"ratio", formatFloat(c.Ratio) + " (distances along the class curves divided by it)"})
	}
	if c.Frame != nil {
		// The weight of each of the frame's directions in the squared
		// distance: the squared norm of its row.
		var w []string
		r, _ := c.Frame.Dims()
		for j := range r {
			row := c.Frame.RawRowView(j)
			w = append(w, fmt.Sprintf("%.3g", floats.Dot(row, row)))
		}
		rows = append(rows, [2]string{"frame", "weights " + strings.Join(w, ", ") + " along the directions of the class gaps"})
	}
	for i, m := range c.Models {
		info.SPCA = append(info.SPCA, describeSPCA(m))
		name := "spca"
		if len(c.Models) > 1 {
			name = fmt.Sprintf("spca class %s", formatFloat(labels[min(i, len(labels)-1)]))
		}
		rows = append(rows, [2]string{name, spcaSummary(m)})
	}
	return info, rows
}

func describeCoded(path string) (codedInfo, [][2]string, error) {
	h, size, err := readHeader(path)
	if err != nil {
		return codedInfo{}, nil, err
	}
	bpp := 8 * float64(size) / float64(h.Width*h.Height)
	info := codedInfo{Kind: kindCoded, Version: h.Version, Model: h.Model.String(), Width: h.Width, Height: h.Height,
		Channels: h.Channels, Depth: h.Depth, Patch: h.Patch, Bins: h.Bins, Bytes: size, BPP: number(bpp),
		Step: number(h.Step), Deblock: h.Deblock, LoopFilter: h.LoopFilter}
	names := channelNames(h.Channels)
	rows := [][2]string{
		{"kind", kindCoded},
		{"format version", fmt.Sprint(h.Version)},
		{"file size", fmt.Sprintf("%d bytes", size)},
		{"model id", info.Model},
		{"image", fmt.Sprintf("%d×%d, %s, %d bits", h.Width, h.Height, strings.Join(names, ", "), h.Depth)},
		{"patch", fmt.Sprintf("%d×%d", h.Patch, h.Patch)},
	}
	for i, b := range h.Bins {
		rows = append(rows, [2]string{"bins " + names[i], binsText(b)})
	}
	if h.Step > 0 {
		rows = append(rows, [2]string{"step", formatFloat(h.Step) + " (set at encode time, not the model's)"})
	}
	if h.Deblock > 0 {
		rows = append(rows, [2]string{"deblocking", fmt.Sprintf("strength %d", h.Deblock)})
	}
	if h.LoopFilter != nil {
		taps := make([]string, len(h.LoopFilter))
		for i, t := range h.LoopFilter {
			taps[i] = fmt.Sprint(t)
		}
		rows = append(rows, [2]string{"loop filter", fmt.Sprintf("on the luma, %d taps in 1/128: %s", len(taps), strings.Join(taps, " "))})
	}
	rows = append(rows, [2]string{"rate", fmt.Sprintf("%.3f bits per pixel", bpp)})
	return info, rows, nil
}

// readHeader reads the header of the coded image at path and returns it
// with the file's size.
func readHeader(path string) (*codec.Header, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, openError(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fail("%s: %v", path, err)
	}
	h, err := codec.DecodeHeader(f)
	if err != nil {
		return nil, 0, fail("%s", withPathC(path, err))
	}
	return h, st.Size(), nil
}

// openError is the CLI error of a file that does not open.
func openError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fail("%s", pathError(pe))
	}
	return fail("%s: %v", path, err)
}
