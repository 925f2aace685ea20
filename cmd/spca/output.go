package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/urfave/cli/v2"
)

// binaryOutput returns the --out of a command that writes a binary file
// (what: "models", "classifiers"), which standard output cannot take,
// nor an existing directory.
func binaryOutput(c *cli.Context, what string) (string, error) {
	out := c.String(flagOut)
	if out == stdio {
		return "", fail("%s: --%s must name a file; %s are binary", cliutil.CommandName(c), flagOut, what)
	}
	// Refused now, not after the training: atomicfile.Check lets an
	// existing directory through (encode and decode write into one).
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return "", fail("%s: --%s %s is a directory; it must name a file", cliutil.CommandName(c), flagOut, out)
	}
	if err := notImageName(c, out, what); err != nil {
		return "", err
	}
	if strings.EqualFold(filepath.Ext(out), ".csv") {
		// fit -o model.csv wrote a binary model under a CSV's name.
		return "", fail("%s: --%s %s: %s writes %s, not CSV files", cliutil.CommandName(c), flagOut, out, cliutil.CommandName(c), what)
	}
	return out, nil
}

// modelExts are the extensions the README and the help give model files
// and coded images.
var modelExts = []string{".spca", ".model", ".knn", ".spc"}

// notModelName refuses an output FILE named like a model or a coded
// image (-o roll.spca) for a command that writes CSV: transform -o
// roll.spca wrote CSV over an SPCA model without a word.
func notModelName(c *cli.Context, out string) error {
	if e := strings.ToLower(filepath.Ext(out)); out != stdio && slices.Contains(modelExts, e) {
		return fail("%s: --%s %s: %s writes CSV files, not %s files (models and coded images)", cliutil.CommandName(c), flagOut, out,
			cliutil.CommandName(c), e)
	}
	return nil
}

// notImageName refuses an output FILE named like an image (-o out.png) for
// a command that writes something else (what: "models", "CSV files"): the
// file was written under that name without a word, and every later read
// of it as an image fails with "not an image".
func notImageName(c *cli.Context, out, what string) error {
	if e := strings.ToLower(filepath.Ext(out)); out != stdio && slices.Contains(imageExts, e) {
		return fail("%s: --%s %s: %s writes %s, not %s images", cliutil.CommandName(c), flagOut, out,
			cliutil.CommandName(c), what, strings.TrimPrefix(e, "."))
	}
	return nil
}

// formatFloat formats v in the shortest form that reads back exactly.
func formatFloat(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// maxGammaDenominator bounds the denominators formatGamma writes.
const maxGammaDenominator = 32

// formatGamma formats a gamma for summaries (and tune's suggested flags,
// which --gamma reads back): a value with at most 4 significant digits as
// formatFloat, one within 1e-12 of a fraction n/d with d <= 32 as that
// fraction (1/3, the seed's coding choice, 2/3: --gamma 2/3 printed
// 0.6666666666666666), anything else as formatFloat, exactly.
func formatGamma(g float64) string {
	s := formatFloat(g)
	mantissa, _, _ := strings.Cut(strconv.FormatFloat(math.Abs(g), 'e', -1, 64), "e")
	if len(strings.Replace(mantissa, ".", "", 1)) <= 4 || math.IsNaN(g) || math.IsInf(g, 0) {
		return s
	}
	for d := 2; d <= maxGammaDenominator; d++ {
		n := math.Round(g * float64(d))
		if math.Abs(g-n/float64(d)) <= 1e-12*math.Max(1, math.Abs(g)) {
			return strconv.FormatFloat(n, 'f', -1, 64) + "/" + strconv.Itoa(d)
		}
	}
	return s
}

// formatFloats formats values as "v1, v2, ...".
func formatFloats(vs []float64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = formatFloat(v)
	}
	return strings.Join(s, ", ")
}

// number is a float64 for JSON output. JSON has no infinities or NaN, so
// these are written as the strings "inf", "-inf" and "nan" (the stiffness
// q may be infinite).
type number float64

func (n number) MarshalJSON() ([]byte, error) {
	v := float64(n)
	switch {
	case math.IsInf(v, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-inf"`), nil
	case math.IsNaN(v):
		return []byte(`"nan"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

func numbers(vs []float64) []number {
	if vs == nil {
		return nil
	}
	ns := make([]number, len(vs))
	for i, v := range vs {
		ns[i] = number(v)
	}
	return ns
}
