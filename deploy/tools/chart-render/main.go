// chart-render renders the dgd-operator Helm chart with Helm's own template machinery
// (text/template, sprig, sigs.k8s.io/yaml, gojsonschema) where Helm itself cannot be
// installed, and writes deploy/manifests/install.yaml from it.
//
//	chart-render template [flags] CHART      the manifests, as `helm template`
//	chart-render notes [flags] CHART         NOTES.txt, as `helm install` prints it
//	chart-render lint [flags] CHART          the checks of `helm lint` (docs/install.md)
//	chart-render install-yaml REPO           deploy/manifests/install.yaml's text, on stdout
//	chart-render write-install REPO          copies crds/ into the chart, writes install.yaml
//
// Flags (template, notes, lint): -f/--values FILE, --set a.b=v, --set-string a.b=v,
// --release-name NAME, -n/--namespace NS, --api-versions G/V, --skip-tests, --strict,
// --skip-schema-validation. Exit status: 0 done, 1 the chart or values are refused,
// 2 usage.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

type options struct {
	valueFiles  listFlag
	sets        listFlag
	setStrings  listFlag
	apiVersions listFlag
	name        string
	namespace   string
	skipTests   bool
	strict      bool
	noSchema    bool
}

// The release docs/install.md installs; install.yaml is it with the Namespace object.
const (
	defaultRelease   = "dgd-operator"
	defaultNamespace = "dgd-system"
)

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: chart-render template|notes|lint [flags] CHART
       chart-render install-yaml|write-install REPO
flags:
  -f, --values FILE          a values file (repeatable; later files win)
  --set a.b=v[,c=w]          a value (repeatable; integers, true/false, null typed as Helm's --set)
  --set-string a.b=v         a string value (repeatable)
  --release-name NAME        release name (default dgd-operator)
  -n, --namespace NS         release namespace (default dgd-system)
  --api-versions G/V         an extra API version for .Capabilities.APIVersions (repeatable)
  --skip-tests               leave out helm.sh/hook: test hooks
  --strict                   a value values.yaml lacks is an error (as helm --strict)
  --skip-schema-validation   do not check values.schema.json
`)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "-h", "--help", "help":
		usage(stdout)
		return 0
	case "install-yaml", "write-install":
		if len(args) != 1 {
			usage(stderr)
			return 2
		}
		text, err := installYAML(args[0])
		if err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return 1
		}
		if cmd == "install-yaml" {
			fmt.Fprint(stdout, text)
			return 0
		}
		if err := writeInstall(args[0], text); err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s and %s\n", installPath, chartCRDDir)
		return 0
	case "template", "notes", "lint":
	default:
		fmt.Fprintf(stderr, "Error: unknown command %q\n", cmd)
		usage(stderr)
		return 2
	}
	var o options
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { usage(stderr) }
	fs.Var(&o.valueFiles, "f", "")
	fs.Var(&o.valueFiles, "values", "")
	fs.Var(&o.sets, "set", "")
	fs.Var(&o.setStrings, "set-string", "")
	fs.Var(&o.apiVersions, "api-versions", "")
	fs.StringVar(&o.name, "release-name", defaultRelease, "")
	fs.StringVar(&o.namespace, "n", defaultNamespace, "")
	fs.StringVar(&o.namespace, "namespace", defaultNamespace, "")
	fs.BoolVar(&o.skipTests, "skip-tests", false, "")
	fs.BoolVar(&o.strict, "strict", false, "")
	fs.BoolVar(&o.noSchema, "skip-schema-validation", false, "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "Error: %s needs exactly one CHART directory\n", cmd)
		return 2
	}
	chartDir := fs.Arg(0)
	values, err := userValues(o)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	if cmd == "lint" {
		if !printLint(chartDir, lintChart(filepath.Clean(chartDir), values), o.strict) {
			return 1
		}
		return 0
	}
	c, err := loadChart(chartDir)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	r, err := renderRelease(c, Release{Name: o.name, Namespace: o.namespace, Values: values, APIs: o.apiVersions,
		SkipTests: o.skipTests, Strict: o.strict, NoSchema: o.noSchema})
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	if cmd == "notes" {
		fmt.Fprint(stdout, r.Notes)
		return 0
	}
	fmt.Fprint(stdout, manifestText(r.Manifests))
	return 0
}

// userValues: the -f files merged in order, then --set and --set-string.
func userValues(o options) (map[string]interface{}, error) {
	vals := map[string]interface{}{}
	for _, f := range o.valueFiles {
		var data []byte
		var err error
		if f == "-" {
			data, err = io.ReadAll(os.Stdin)
		} else {
			data, err = os.ReadFile(f)
		}
		if err != nil {
			return nil, err
		}
		fileVals, err := readValues(data)
		if err != nil {
			return nil, fmt.Errorf("failed to parse %s: %v", f, err)
		}
		vals = mergeMaps(vals, fileVals)
	}
	for _, s := range o.sets {
		if err := applySet(vals, s, false); err != nil {
			return nil, fmt.Errorf("failed parsing --set data: %v", err)
		}
	}
	for _, s := range o.setStrings {
		if err := applySet(vals, s, true); err != nil {
			return nil, fmt.Errorf("failed parsing --set-string data: %v", err)
		}
	}
	return vals, nil
}

// Where install.yaml and the chart's copy of the CRDs live, relative to the repository.
const (
	installPath = "deploy/manifests/install.yaml"
	chartDir    = "deploy/helm/dgd-operator"
	chartCRDDir = chartDir + "/files/crds"
)

const installHeader = `# dgd-operator, installed with one command:
#   kubectl apply -f deploy/manifests/install.yaml
# GENERATED by deploy/tools/chart-render (write-install): do not edit; edit the chart
# (deploy/helm/dgd-operator) or crds/ and regenerate. It is the chart's defaults (release
# "dgd-operator" in the namespace "dgd-system", plus the Namespace itself, without the
# helm test Pod): tests/e2e/install/test_manifests_consistent.py fails when it differs.
# See docs/install.md.
`

// installYAML renders the chart with the CRDs of repo/crds (not the chart's copy, which
// write-install refreshes first) as install.yaml holds it.
func installYAML(repo string) (string, error) {
	c, err := loadChart(filepath.Join(repo, chartDir))
	if err != nil {
		return "", err
	}
	crds, err := topLevelCRDs(repo)
	if err != nil {
		return "", err
	}
	for name := range c.Files {
		if strings.HasPrefix(name, "files/crds/") {
			delete(c.Files, name)
		}
	}
	for name, data := range crds {
		c.Files["files/crds/"+name] = data
	}
	r, err := renderRelease(c, Release{Name: defaultRelease, Namespace: defaultNamespace, SkipTests: true,
		Strict: true, Values: map[string]interface{}{"createNamespace": true}})
	if err != nil {
		return "", err
	}
	return installHeader + manifestText(r.Manifests), nil
}

func topLevelCRDs(repo string) (map[string][]byte, error) {
	entries, err := os.ReadDir(filepath.Join(repo, "crds"))
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(repo, "crds", e.Name()))
		if err != nil {
			return nil, err
		}
		out[e.Name()] = data
	}
	if len(out) == 0 {
		return nil, errors.New("crds/ holds no .yaml file")
	}
	return out, nil
}

// writeInstall makes the chart's files/crds/ exactly crds/*.yaml, then writes install.yaml.
func writeInstall(repo, text string) error {
	crds, err := topLevelCRDs(repo)
	if err != nil {
		return err
	}
	dir := filepath.Join(repo, chartCRDDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := os.ReadDir(dir)
	for _, e := range old {
		if _, keep := crds[e.Name()]; !keep {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	names := make([]string, 0, len(crds))
	for n := range crds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if cur, err := os.ReadFile(p); err == nil && bytes.Equal(cur, crds[n]) {
			continue
		}
		if err := os.WriteFile(p, crds[n], 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(repo, installPath), []byte(text), 0o644)
}
