// helm-strvals: Helm's own --set family of flags, merged into one JSON object on stdout.
//
// verl-grpo's CLI reads --set, --set-string, --set-json, --set-file and --set-literal with a Python
// port of Helm's parser (cdk8s/verl_grpo/values/helm_sets.py); its tests hold the port equal to this
// program, so that a string means on the CLI exactly what it means to `helm install`: the parser is
// Helm's pkg/strvals at the version of the helm binary `make tools` installs (go.mod), and the
// order is Helm's: every --set-json, then --set, --set-string, --set-file, --set-literal, each in
// command-line order, whatever order they were given in (pkg/cli/values/options.go MergeValues,
// helm.sh/helm/v4@v4.1.4). Values files (-f) are not read here: the CLI reads and checks them
// itself, and Helm merges them before any --set too.
//
// Usage: helm-strvals [--base JSON] [--set S | --set-string S | --set-json S | --set-file S | --set-literal S]...
// --base: the values the flags apply to (the merged -f files: Helm's `base` when its --set loop
// starts; a list index then edits the files' list). Exit 1 with Helm's own error message on stderr
// when a string does not parse.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"

	"helm.sh/helm/v4/pkg/strvals"
)

// flags in the order MergeValues applies them.
var order = []string{"--set-json", "--set", "--set-string", "--set-file", "--set-literal"}

func main() {
	given := map[string][]string{}
	base := map[string]interface{}{}
	args := os.Args[1:]
	for i := 0; i < len(args); i += 2 {
		flag := args[i]
		if flag == "--base" && i+1 < len(args) {
			decoder := json.NewDecoder(strings.NewReader(args[i+1]))
			decoder.UseNumber() // integers stay integers
			if err := decoder.Decode(&base); err != nil {
				fail(fmt.Errorf("--base: %w", err))
			}
			continue
		}
		if !known(flag) || i+1 == len(args) {
			fail(fmt.Errorf("usage: helm-strvals [%s VALUE]...; got %q", strings.Join(order, "|"), flag))
		}
		given[flag] = append(given[flag], args[i+1])
	}
	for _, flag := range order {
		for _, value := range given[flag] {
			if err := parse(flag, value, base); err != nil {
				fail(err)
			}
		}
	}
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(base); err != nil {
		fail(err)
	}
}

func known(flag string) bool {
	for _, f := range order {
		if f == flag {
			return true
		}
	}
	return false
}

// parse mirrors MergeValues' branch for each flag, with its error wording.
func parse(flag, value string, base map[string]interface{}) error {
	switch flag {
	case "--set-json":
		trimmed := strings.TrimSpace(value)
		if len(trimmed) > 0 && trimmed[0] == '{' {
			var jsonMap map[string]interface{}
			if err := json.Unmarshal([]byte(trimmed), &jsonMap); err != nil {
				return fmt.Errorf("failed parsing --set-json data JSON: %s", value)
			}
			mergeMaps(base, jsonMap)
			return nil
		}
		if err := strvals.ParseJSON(value, base); err != nil {
			return fmt.Errorf("failed parsing --set-json data %s", value)
		}
	case "--set":
		if err := strvals.ParseInto(value, base); err != nil {
			return fmt.Errorf("failed parsing --set data: %w", err)
		}
	case "--set-string":
		if err := strvals.ParseIntoString(value, base); err != nil {
			return fmt.Errorf("failed parsing --set-string data: %w", err)
		}
	case "--set-file":
		if err := strvals.ParseIntoFile(value, base, readFile); err != nil {
			return fmt.Errorf("failed parsing --set-file data: %w", err)
		}
	case "--set-literal":
		if err := strvals.ParseLiteralInto(value, base); err != nil {
			return fmt.Errorf("failed parsing --set-literal data: %w", err)
		}
	}
	return nil
}

// readFile is MergeValues' reader for local paths and "-" (stdin); Helm's URL getters are left out.
func readFile(rs []rune) (interface{}, error) {
	path := string(rs)
	var data []byte
	var err error
	if strings.TrimSpace(path) == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	return string(data), err
}

// mergeMaps is loader.MergeMaps (pkg/chart/v2/loader/load.go@v4.1.4) merging into a in place:
// nested maps merge, anything else in b replaces.
func mergeMaps(a, b map[string]interface{}) {
	for k, v := range b {
		if bm, ok := v.(map[string]interface{}); ok {
			if am, ok := a[k].(map[string]interface{}); ok {
				inner := maps.Clone(am)
				mergeMaps(inner, bm)
				a[k] = inner
				continue
			}
		}
		a[k] = v
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
