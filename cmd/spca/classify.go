package main

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/classify"
	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/spca"
)

const (
	flagLabelColumn = "label-column"
	flagTest        = "test"
	flagTrain       = "train"
	flagMetric      = "metric"
)

// classifyKs are the k tried by leave-one-out.
var classifyKs = []int{1, 3, 5, 7, 9, 15, 21, 31}

func classifyCommand() *cli.Command {
	common := func() []cli.Flag {
		return []cli.Flag{
			&cli.IntFlag{Name: flagLabelColumn, Usage: "the `C`-th column (from 1) of the labelled CSV holds the class labels (numbers)", DefaultText: "the last"},
			&cli.StringFlag{Name: flagGamma, Value: "0", Usage: "gamma of the SPCA metrics (0: arc length)", DefaultText: "0 with --nearest; without it, 0 or 1 chosen by leave-one-out with the number of neighbours"},
			&cli.Uint64Flag{Name: flagSeed, Value: defaultSeed, Usage: "seed of the SPCA fits"},
		}
	}
	return &cli.Command{
		Name:  "classify",
		Usage: "k-nearest-neighbour classification with the SPCA metric, Euclidean or Mahalanobis",
		UsageText: "spca classify train --in train.csv [--label-column C] [--metric spca] [--nearest N] -o classifier.knn\n" +
			"spca classify predict --model classifier.knn --in x.csv -o labels.csv\n" +
			"spca classify eval --in train.csv [--test test.csv] [--label-column C] [--json]",
		Subcommands: []*cli.Command{
			{
				Name:      "train",
				UsageText: "spca classify train --in train.csv [--label-column C] [--metric spca] [--nearest N] [--gamma G] -o classifier.knn",
				Usage:     "write a classifier file: the labelled samples, the metric, the number of neighbours that vote (chosen by leave-one-out unless --nearest) and the SPCA models",
				Flags: append(common(),
					&cli.StringFlag{Name: flagIn, Usage: "labelled training CSV `FILE` (required)"},
					&cli.StringFlag{Name: flagOut, Aliases: []string{flagO}, Usage: "classifier `FILE` to write (required)"},
					metricFlag(),
					nearestFlag("the number `N` of nearest training samples that vote (the k of k-NN); 0: chosen by leave-one-out, with the SPCA neighbourhood K (0.1 to 0.5) and gamma"),
					oldNearestFlag()),
				Action: runClassifyTrain,
			},
			{
				Name:      "eval",
				UsageText: "spca classify eval --in train.csv [--test test.csv] [--label-column C] [--gamma G] [--json]",
				Usage:     "compare the metrics: k chosen by leave-one-out on the training samples, accuracy on --test",
				Flags: append(common(),
					&cli.StringFlag{Name: flagIn, Usage: "labelled training CSV `FILE` (required)"},
					&cli.StringFlag{Name: flagTest, Usage: "labelled held-out CSV `FILE`; without it only the leave-one-out accuracy is given"},
					cliutil.JSONFlag()),
				Action: runClassifyEval,
			},
			{
				Name:      "predict",
				UsageText: "spca classify predict (--model classifier.knn | --train train.csv [--metric spca] [--nearest N]) --in x.csv [-o labels.csv]",
				Usage:     "label the samples of a CSV file by their nearest labelled training samples",
				Flags: append(common(),
					&cli.StringFlag{Name: flagModel, Usage: "classifier `FILE` written by spca classify train (or --train)"},
					&cli.StringFlag{Name: flagTrain, Usage: "labelled training CSV `FILE` instead of --model (trains on the fly)"},
					inFlag(true),
					csvOutFlag(),
					metricFlag(),
					nearestFlag("with --train, the number `N` of nearest training samples that vote (the k of k-NN); 0: chosen by leave-one-out"),
					oldNearestFlag()),
				Action: runClassifyPredict,
			},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return fail("classify: unknown command %q%s (see spca classify --help)", c.Args().First(), didYouMean(c.Command.Subcommands, c.Args().First()))
			}
			return cli.ShowSubcommandHelp(c)
		},
	}
}

// labelled reads a labelled CSV: the samples without the label column, the
// class of each (an index into values) and the distinct label values.
// A training set (train) must have at least two samples a class on
// average.
func labelled(c *cli.Context, path string, train bool) (*mat.Dense, []int, []float64, error) {
	data, err := readSamples(c, path)
	if err != nil {
		return nil, nil, nil, err
	}
	n, d := data.Dims()
	col := d
	if c.IsSet(flagLabelColumn) {
		col = c.Int(flagLabelColumn)
	}
	if d < 2 {
		// --label-column 1 not in [1, 1] said a file of one column, with
		// no --label-column given.
		return nil, nil, nil, fail("%s: %s has 1 column: labelled samples need a value and a class label (the last column unless --%s)",
			cliutil.CommandName(c), path, flagLabelColumn)
	}
	if col < 1 || col > d {
		return nil, nil, nil, fail("%s: --%s %d not in [1, %d]", cliutil.CommandName(c), flagLabelColumn, col, d)
	}
	x := mat.NewDense(n, d-1, nil)
	seen := map[float64]bool{}
	var values []float64
	raw := make([]float64, n)
	for i := range n {
		k := 0
		for j := range d {
			if j == col-1 {
				raw[i] = data.At(i, j)
				if !seen[raw[i]] {
					seen[raw[i]] = true
					values = append(values, raw[i])
				}
				continue
			}
			x.Set(i, k, data.At(i, j))
			k++
		}
	}
	sort.Float64s(values)
	index := map[float64]int{}
	for i, v := range values {
		index[v] = i
	}
	label := make([]int, n)
	for i, v := range raw {
		label[i] = index[v]
	}
	if len(values) < 2 {
		return nil, nil, nil, fail("%s: %s has fewer than two classes in column %d", cliutil.CommandName(c), path, col)
	}
	// A column of measurements (the label column missing, or another
	// column named) gives about one class a sample, which the SPCA
	// metrics reported as a class too small for a model.
	if train && 2*len(values) > n {
		return nil, nil, nil, fail("%s: column %d of %s holds %d distinct values in %d samples, not class labels "+
			"(the class is the last column unless --%s names another)", cliutil.CommandName(c), col, path, len(values), n, flagLabelColumn)
	}
	return x, label, values, nil
}

func classifySPCAOptions(c *cli.Context) (spca.Options, error) {
	opt := spca.DefaultOptions()
	opt.Seed = c.Uint64(flagSeed)
	opt.Resolution = 1 << 14
	var err error
	if opt.Gamma, err = parseGamma(c.String(flagGamma)); err != nil {
		return opt, fail("%s: --%s: %v", cliutil.CommandName(c), flagGamma, err)
	}
	return opt, nil
}

type classifyRowJSON struct {
	Metric   string `json:"metric"`
	K        int    `json:"k"`
	LOO      number `json:"leave_one_out_accuracy"`
	Accuracy number `json:"test_accuracy,omitempty"`
	// SPCAK and Gamma are the SPCA options chosen for the SPCA metrics.
	SPCAK number   `json:"spca_k,omitempty"`
	Gamma *float64 `json:"gamma,omitempty"`
	// Dims are the response dimensions (from 1) that spca-select keeps.
	Dims []int `json:"dims,omitempty"`
	// Ratio is spca-tangent's and spca-fisher's elongation of the neighbourhoods.
	Ratio number `json:"ratio,omitempty"`
}

// classifyGrid returns the SPCA options that k-NN training chooses from
// by leave-one-out: classify.SelectionGrid, restricted to --gamma when
// it is given.
func classifyGrid(c *cli.Context, opt spca.Options) []spca.Options {
	grid := classify.SelectionGrid(opt)
	if !c.IsSet(flagGamma) {
		return grid
	}
	var out []spca.Options
	for _, o := range grid {
		if o.Gamma == grid[0].Gamma {
			o.Gamma = opt.Gamma
			out = append(out, o)
		}
	}
	return out
}

func runClassifyEval(c *cli.Context) error {
	if err := cliutil.NoPositionals(c); err != nil {
		return err
	}
	if err := requireFlags(c, flagIn); err != nil {
		return err
	}
	x, label, values, err := labelled(c, c.String(flagIn), true)
	if err != nil {
		return err
	}
	var tx *mat.Dense
	var tl []int
	if c.IsSet(flagTest) {
		var tv []float64
		if tx, tl, tv, err = labelled(c, c.String(flagTest), false); err != nil {
			return err
		}
		if _, d := tx.Dims(); d != x.RawMatrix().Cols {
			// Both files are labelled: a test set without its labels
			// (as predict takes) said only that the dimensions differ.
			return fail("classify eval: %s has %s per sample besides its label column, %s %d (both are labelled CSV: classify eval scores the predictions against the test labels)",
				c.String(flagTest), cliutil.Plural(d, "value"), c.String(flagIn), x.RawMatrix().Cols)
		}
		// Classes are matched by label value: by index (only their
		// numbers compared), test labels 5 and 9 counted as 0 and 1.
		for i, l := range tl {
			j, ok := slices.BinarySearch(values, tv[l])
			if !ok {
				return fail("classify eval: label %v of %s is not a class of %s", tv[l], c.String(flagTest), c.String(flagIn))
			}
			tl[i] = j
		}
	}
	opt, err := classifySPCAOptions(c)
	if err != nil {
		return err
	}
	var rows []classifyRowJSON
	for _, m := range classify.Metrics() {
		cl, loo, err := classify.TrainSelect(x, label, len(values), m, classifyKs, classifyGrid(c, opt))
		if err != nil {
			return fail("classify eval: %v: %s", m, brief(err))
		}
		row := classifyRowJSON{Metric: m.String(), K: cl.K, LOO: number(loo), Ratio: number(cl.Ratio)}
		if len(cl.Models) > 0 {
			o := cl.Models[0].Options()
			row.SPCAK, row.Gamma = number(o.K), &o.Gamma
		}
		for j, w := range cl.Weights {
			if w != 0 {
				row.Dims = append(row.Dims, j+1)
			}
		}
		if tx != nil {
			acc, err := cl.Accuracy(tx, tl)
			if err != nil {
				return fail("classify eval: %s", brief(err))
			}
			row.Accuracy = number(acc)
		}
		rows = append(rows, row)
	}
	w := c.App.Writer
	if c.Bool(flagJSON) {
		return cliutil.WriteJSON(w, rows)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// The last two columns are accuracies (shares of samples labelled
	// right), which the header did not say.
	fmt.Fprintln(tw, "metric\tk\tSPCA K\tgamma\tdims\taccuracy: leave-one-out\ttest")
	for _, r := range rows {
		test := "-"
		if tx != nil {
			test = fmt.Sprintf("%.4f", float64(r.Accuracy))
		}
		sk, g := "-", "-"
		if r.Gamma != nil {
			sk, g = fmt.Sprintf("%g", float64(r.SPCAK)), fmt.Sprintf("%.3g", *r.Gamma)
		}
		dims := "-"
		if r.Dims != nil {
			var d []string
			for _, j := range r.Dims {
				d = append(d, strconv.Itoa(j))
			}
			dims = strings.Join(d, ",")
		}
		if r.Ratio > 0 {
			dims = fmt.Sprintf("ratio %g", float64(r.Ratio))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.4f\t%s\n", r.Metric, r.K, sk, g, dims, float64(r.LOO), test)
	}
	return tw.Flush()
}

func metricFlag() cli.Flag {
	return &cli.StringFlag{Name: flagMetric, Value: classify.SPCA.String(), Usage: strings.Join(classify.MetricNames(), ", ") + " (spca-select: spca on the response dimensions chosen by leave-one-out; spca-tangent: input distances shrunk along the per-class SPCA curves by a ratio chosen by leave-one-out; spca-fisher: spca-tangent in a frame that weighs directions by the local gaps between the classes)"}
}

// nearestFlag is classify's --nearest with the help text usage.
func nearestFlag(usage string) cli.Flag {
	return &cli.IntFlag{Name: flagNearest, Usage: usage}
}

// oldNearestFlag is --k, the old name of classify's --nearest: still
// accepted, with a note, but not shown (issue 25: one name per meaning;
// --k is the SPCA neighbourhood fraction in fit, tune, codec train and
// adapt train).
func oldNearestFlag() cli.Flag {
	return &cli.IntFlag{Name: flagK, Hidden: true, Usage: "old name of --" + flagNearest}
}

// nearest returns --nearest, or its old name --k if that is given (with a
// note on standard error), checked against each other.
func nearest(c *cli.Context) (int, error) {
	name, k := cliutil.CommandName(c), c.Int(flagNearest)
	if !c.IsSet(flagK) {
		return k, nil
	}
	if c.IsSet(flagNearest) && c.Int(flagK) != k {
		return 0, fail("%s: --%s %d and --%s %d: give only --%s (--%s is its old name)", name, flagNearest, k, flagK, c.Int(flagK), flagNearest, flagK)
	}
	fmt.Fprintf(c.App.ErrWriter, "%s: note: --%s is deprecated here, use --%s %d (the number of neighbours that vote; --%s is the SPCA neighbourhood fraction in fit, tune, codec train and adapt train)\n",
		name, flagK, flagNearest, c.Int(flagK), flagK)
	return c.Int(flagK), nil
}

// trainClassifier trains a classifier of the labelled CSV path with
// --metric, --nearest (0: by leave-one-out) and the SPCA flags.
func trainClassifier(c *cli.Context, path string) (*classify.Classifier, error) {
	metric, err := classify.ParseMetric(c.String(flagMetric))
	if err != nil {
		msg := strings.TrimPrefix(brief(err), "classify: ")
		return nil, fail("%s: --%s: %s", cliutil.CommandName(c), flagMetric, withSuggestion(msg, c.String(flagMetric), classify.MetricNames()))
	}
	x, label, values, err := labelled(c, path, true)
	if err != nil {
		return nil, err
	}
	opt, err := classifySPCAOptions(c)
	if err != nil {
		return nil, err
	}
	k, err := nearest(c)
	if err != nil {
		return nil, err
	}
	var cl *classify.Classifier
	if k == 0 {
		// k and the SPCA options by leave-one-out.
		cl, _, err = classify.TrainSelect(x, label, len(values), metric, classifyKs, classifyGrid(c, opt))
	} else {
		cl, err = classify.Train(x, label, len(values), metric, k, opt)
	}
	if err != nil {
		return nil, fail("%s: %s", cliutil.CommandName(c), brief(err))
	}
	cl.Values = values
	return cl, nil
}

func runClassifyTrain(c *cli.Context) error {
	if err := cliutil.NoPositionals(c); err != nil {
		return err
	}
	if err := requireFlags(c, flagIn, flagOut); err != nil {
		return err
	}
	out, err := binaryOutput(c, "classifiers")
	if err != nil {
		return err
	}
	cl, err := trainClassifier(c, c.String(flagIn))
	if err != nil {
		return err
	}
	if err := cl.Save(out); err != nil {
		return fail("%s", withPath(out, err))
	}
	if !cliutil.Quiet(c) {
		spcaText := ""
		if len(cl.Models) > 0 {
			// The SPCA neighbourhood and gamma, chosen with k unless given.
			opt := cl.Models[0].Options()
			spcaText = fmt.Sprintf(", SPCA K %s, gamma %s", formatFloat(opt.K), formatGamma(opt.Gamma))
		}
		if cl.Metric == classify.SPCATangent || cl.Metric == classify.SPCAFisher {
			spcaText += ", ratio " + formatFloat(cl.Ratio)
		}
		fmt.Fprintf(c.App.ErrWriter, "classify train: %v, k = %d%s -> %s\n", cl.Metric, cl.K, spcaText, out)
	}
	return nil
}

func runClassifyPredict(c *cli.Context) error {
	if err := cliutil.NoPositionals(c); err != nil {
		return err
	}
	if err := requireFlags(c, flagIn); err != nil {
		return err
	}
	var cl *classify.Classifier
	var err error
	switch {
	case c.IsSet(flagModel) && c.IsSet(flagTrain):
		return fail("classify predict: give --%s or --%s, not both", flagModel, flagTrain)
	case !c.IsSet(flagModel) && !c.IsSet(flagTrain):
		return fail("classify predict: give --%s or --%s", flagModel, flagTrain)
	case c.IsSet(flagModel):
		// The classifier file fixes them: ignored, unchecked, they let
		// --metric euclidean look as if it applied.
		for _, f := range []string{flagNearest, flagK, flagMetric, flagGamma, flagLabelColumn, flagSeed} {
			if c.IsSet(f) {
				return fail("classify predict: --%s applies with --%s only (the classifier file %s fixes it)", f, flagTrain, c.String(flagModel))
			}
		}
		if err := checkKind(c.String(flagModel), classify.Magic); err != nil {
			return err
		}
		if cl, err = classify.Load(c.String(flagModel)); err != nil {
			return fail("%s", withPath(c.String(flagModel), err))
		}
	default:
		if cl, err = trainClassifier(c, c.String(flagTrain)); err != nil {
			return err
		}
	}
	q, err := readSamples(c, c.String(flagIn))
	if err != nil {
		return err
	}
	if _, d := q.Dims(); d != cl.Dim() {
		hint := ""
		if d == cl.Dim()+1 {
			// A labelled file, such as the --test of classify eval.
			hint = fmt.Sprintf(" (if its last column holds class labels, give the samples without it: cut -d, -f1-%d)", cl.Dim())
		}
		return fail("classify predict: %s has %d values per sample, the training samples %d%s", c.String(flagIn), d, cl.Dim(), hint)
	}
	p, err := cl.Predict(q)
	if err != nil {
		return fail("classify predict: %s", brief(err))
	}
	out := mat.NewDense(len(p), 1, nil)
	for i, l := range p {
		out.Set(i, 0, cl.Values[l])
	}
	if err := writeSamples(c, out, "label"); err != nil {
		return err
	}
	if wantSummary(c) {
		// It wrote its labels and said nothing, unlike train and eval.
		counts := make([]int, len(cl.Values))
		for _, l := range p {
			counts[l]++
		}
		per := make([]string, len(counts))
		for i, n := range counts {
			per[i] = fmt.Sprintf("%s: %d", formatFloat(cl.Values[i]), n)
		}
		fmt.Fprintf(c.App.ErrWriter, "classify predict: %s labelled by %s k-NN, k = %d (%s) -> %s\n",
			cliutil.Plural(len(p), "sample"), cl.Metric, cl.K, strings.Join(per, ", "), c.String(flagOut))
	}
	return nil
}
