// Command spca fits Sequential Principal Curves Analysis models and uses
// them: on CSV data, for transform coding of images, for colour
// adaptation across illuminants, and to regenerate the method's figures.
//
//	spca figures                                     # runs spca-figures: results/ from built-in data
//	spca synth spiral --n 2000 --out data.csv
//	spca fit --in data.csv --gamma 1/3 --out model.spca
//	spca transform --model model.spca --in data.csv --out r.csv --stats
//	spca inverse --model model.spca --in r.csv --out x.csv
//	spca tune --in data.csv
//	spca info model.spca
//	spca codec train --images DIR --out codec.model; spca encode / decode / codec eval
//	spca adapt train --pairs DIR --out adapt.model; spca adapt apply / lut / map / eval
//
// CSV files hold one sample per line with comma-separated values; lines
// starting with '#' are comments. "-" stands for standard input or output.
// Run "spca COMMAND --help" for the flags of each command.
package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/cmd/spca/internal/hugestart" // also 2 MB pages for encode and decode, before package init
)

func main() {
	cliutil.RemoveTempsOnSignal("spca")
	if err := appFor(os.Args).Run(os.Args); err != nil {
		if err.Error() != "" { // "": spca figures' program printed its error
			fmt.Fprintln(os.Stderr, errorLine(err))
		}
		os.Exit(cliutil.ExitCode(err))
	}
}

// newApp builds the command-line application. Errors are returned from Run
// instead of being printed and exiting, so that main prints them as one
// line and tests can run the app in-process.
func newApp() *cli.App {
	app := newAppWith(
		fitCommand(),
		transformCommand(),
		inverseCommand(),
		tuneCommand(),
		infoCommand(),
		synthCommand(),
		codecCommand(),
		encodeCommand(),
		decodeCommand(),
		adaptCommand(),
		classifyCommand(),
		figuresCommand(),
	)
	// spca help codec train; with a help command of its own, urfave adds
	// no --help flag. The encode and decode apps keep urfave's: they have
	// one command.
	app.Commands = append(app.Commands, helpCommand())
	app.Flags = append(app.Flags, cli.HelpFlag)
	return app
}

// appFor is the application for the command line args: a process started
// as spca encode or spca decode (one per image is the common use) builds
// that command only, the same as newApp's, and not the flags of all the
// others (1-1.5 ms of its CPU, with the adaptation flags' scene whites);
// spca --version (or -v) alone builds none: it prints the version only
// (building them was 7 % of its CPU samples, perf).
func appFor(args []string) *cli.App {
	switch hugestart.Command(args) {
	case "encode":
		return newAppWith(encodeCommand())
	case "decode":
		return newAppWith(decodeCommand())
	case "":
		if len(args) == 2 && (args[1] == "--version" || args[1] == "-v") {
			return newAppWith()
		}
	}
	return newApp()
}

// newAppWith is newApp with the commands cmds.
func newAppWith(cmds ...*cli.Command) *cli.App {
	cli.FlagStringer = flagString
	app := &cli.App{
		Name:  "spca",
		Usage: "Sequential Principal Curves Analysis",
		Description: "Fits SPCA, a nonlinear invertible transform that follows the principal " +
			"curves of the data, and applies it and its inverse to CSV files (fit, transform, inverse, tune); " +
			"codes images with it (codec train, encode, decode), maps colours seen under one light to another " +
			"(adapt) and classifies with its metric (classify). synth makes data to try each on; the README " +
			"has a worked example of each.",
		Flags:    []cli.Flag{cliutil.QuietFlag()},
		Version:  cliutil.Version(),
		Commands: cmds,
		// Runtime errors are printed by main as one line; nothing else may
		// print or exit.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   cliutil.UsageError,
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return cli.Exit(fmt.Sprintf("unknown command %q%s (see spca --help)", c.Args().First(), didYouMean(c.App.Commands, c.Args().First())), 1)
			}
			return cli.ShowAppHelp(c)
		},
	}
	configure(app.Commands, "")
	return app
}

// helpCommand is spca help [COMMAND [SUBCOMMAND]]: the help of the command
// named, as spca COMMAND [SUBCOMMAND] --help prints it (urfave's help
// command showed codec's help for spca help codec train).
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:            "help",
		Aliases:         []string{"h"},
		Usage:           "Shows a list of commands or help for one command",
		ArgsUsage:       "[command [subcommand]]",
		HideHelp:        true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) == 0 {
				return cli.ShowAppHelp(c)
			}
			return c.App.Run(append(append([]string{c.App.Name}, args...), "--help"))
		},
	}
}

// configure gives every command and subcommand the same behaviour: usage
// errors as one line, no help subcommand, and --quiet accepted after the
// command name as well as before it.
func configure(cmds []*cli.Command, parent string) {
	for _, cmd := range cmds {
		path := strings.TrimSpace(parent + " " + cmd.Name)
		cmd.HideHelpCommand = true
		cmd.OnUsageError = cliutil.UsageError
		cmd.Flags = append(cmd.Flags, cliutil.QuietFlag())
		withPixelBudget(cmd, path)
		withAssumeSRGB(cmd, path)
		withOutputGuard(cmd)
		configure(cmd.Subcommands, path)
	}
}

// didYouMean returns "; did you mean NAME?" for the command of cmds whose
// name is nearest to name (cliutil.Nearest), else "".
func didYouMean(cmds []*cli.Command, name string) string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden && c.Name != "help" {
			names = append(names, c.Name)
		}
	}
	return didYouMeanOf(name, names)
}

// didYouMeanOf returns "; did you mean NAME?" for the name of known
// nearest to name (cliutil.Nearest), else "": for misspelt commands, data
// sets, methods and metrics as for flags.
func didYouMeanOf(name string, known []string) string {
	if best := cliutil.Nearest(strings.ToLower(name), known); best != "" {
		return "; did you mean " + best + "?"
	}
	return ""
}

// withSuggestion puts didYouMeanOf(name, known) into msg, an "unknown
// NAME (known: ...)" message, before its list.
func withSuggestion(msg, name string, known []string) string {
	s := didYouMeanOf(name, known)
	if s == "" {
		return msg
	}
	if head, list, ok := strings.Cut(msg, " (known: "); ok {
		return head + s + " (known: " + list
	}
	return msg + s
}

// errorLine formats err as the one line main prints: "spca: message".
func errorLine(err error) string {
	return "spca: " + brief(err)
}

// brief returns the message of err without the "spca: " prefix of the
// library's errors, also where the library wrapped one of its errors
// ("model.spca: spca: invalid model file: ..."), for embedding in a
// message of the command.
func brief(err error) string {
	return flagNamed(cliutil.Brief(err))
}

// optionFlags maps the fields of spca.Options that the library's option
// errors name to the flags that set them.
var optionFlags = map[string]string{
	"Gamma": flagGamma, "K": flagK, "Tau": flagTau, "Q": flagQ, "Tol": flagTol,
	"MaxIter": flagMaxIter, "OriginPoint": flagOrigin, "Bandwidth": flagBandwidth,
	"Conditioning": flagConditioning, "Neighbours": flagNeighbours,
	"Resolution": flagResolution, "MaxReference": flagMaxReference,
}

// optionField matches the Go field an spca.OptionError names. It is
// compiled on first use: every process (one per image for encode and
// decode) would compile it at start, and only errors need it.
var optionField = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`invalid option: ([A-Z][A-Za-z]*)\b`)
})

// flagNamed rewrites "invalid option: K must be ..." from the library as
// "--k must be ...", naming the flag the user typed instead of the Go field.
func flagNamed(msg string) string {
	re := optionField()
	return re.ReplaceAllStringFunc(msg, func(m string) string {
		field := re.FindStringSubmatch(m)[1]
		if name, ok := optionFlags[field]; ok {
			return "--" + name
		}
		return m
	})
}
