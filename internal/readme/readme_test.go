package readme

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// examples are the files whose "// README begin" to "// README end"
// blocks the README shows, in order.
var examples = []string{"spca/readme_example_test.go", "codec/readme_example_test.go", "adapt/readme_example_test.go", "classify/readme_example_test.go"}

// snippets returns the ```go blocks of the README.
func snippets(readme string) []string {
	var out []string
	for _, part := range strings.Split(readme, "```go\n")[1:] {
		code, _, _ := strings.Cut(part, "```")
		out = append(out, code)
	}
	return out
}

// marked returns the block between the README markers of an example
// file, without the one-tab indentation of a function body.
func marked(t *testing.T, src string) string {
	_, after, ok := strings.Cut(src, "\t// README begin\n")
	block, _, ok2 := strings.Cut(after, "\t// README end\n")
	if !ok || !ok2 {
		t.Fatal("no README markers")
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(block, "\n") {
		b.WriteString(strings.TrimPrefix(line, "\t"))
	}
	return b.String()
}

// TestReadmeSnippets checks that the README's Go snippets are, in order,
// exactly the marked blocks of the example functions (compiled by go
// test).
func TestReadmeSnippets(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := snippets(string(readme))
	if len(got) != len(examples) {
		t.Fatalf("README has %d Go snippets, want %d (one per example file: %v)", len(got), len(examples), examples)
	}
	for i, name := range examples {
		src, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if want := marked(t, string(src)); got[i] != want {
			t.Errorf("README snippet %d differs from the example in %s:\n--- README\n%s--- example\n%s", i+1, name, got[i], want)
		}
	}
}
