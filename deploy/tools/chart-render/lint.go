// The checks of `helm lint` that apply to this chart, and the metadata a published chart
// needs: Chart.yaml (strict fields, name, SemVer version, string appVersion; maintainers,
// sources and icon well formed when given, a missing icon reported as INFO as Helm does;
// the artifacthub.io/license annotation), values.yaml against
// values.schema.json, and every template rendered with the defaults (strict: a value
// values.yaml lacks is an error) into documents that each have apiVersion, kind and a
// valid metadata.name.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/Masterminds/semver"
	"github.com/asaskevich/govalidator"
	"sigs.k8s.io/yaml"
)

type finding struct {
	severity string // ERROR, WARNING, INFO
	path     string
	msg      string
}

var chartNamePattern = regexp.MustCompile(`^[a-z0-9-]+$`)
var dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

func lintChart(dir string, userValues map[string]interface{}) []finding {
	var out []finding
	add := func(sev, p, format string, args ...interface{}) {
		out = append(out, finding{sev, p, fmt.Sprintf(format, args...)})
	}
	raw, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		add("ERROR", "Chart.yaml", "%v", err)
		return out
	}
	var meta Metadata
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		add("ERROR", "Chart.yaml", "unable to parse YAML\n\t%v", err)
		return out
	}
	if err := yaml.UnmarshalStrict(raw, &Metadata{}); err != nil {
		add("WARNING", "Chart.yaml", "failed to strictly parse chart metadata file\n\t%v", err)
	}
	var typed map[string]interface{}
	_ = yaml.Unmarshal(raw, &typed)
	for _, key := range []string{"version", "appVersion"} {
		if v, ok := typed[key]; ok {
			if _, isString := v.(string); !isString {
				add("ERROR", "Chart.yaml", "%s should be of type string but it's of type %T", key, v)
			}
		}
	}
	switch {
	case meta.Name == "":
		add("ERROR", "Chart.yaml", "name is required")
	case !chartNamePattern.MatchString(meta.Name):
		add("ERROR", "Chart.yaml", "chart name %q is invalid: must be lowercase and may only contain letters, numbers, and dashes", meta.Name)
	case filepath.Base(dir) != meta.Name:
		add("ERROR", "Chart.yaml", "chart name %q does not match the directory name %q", meta.Name, filepath.Base(dir))
	}
	if meta.APIVersion != "v2" {
		add("ERROR", "Chart.yaml", "apiVersion '%s' is not valid. The value must be \"v2\"", meta.APIVersion)
	}
	if meta.Version == "" {
		add("ERROR", "Chart.yaml", "version is required")
	} else if _, err := semver.NewVersion(meta.Version); err != nil {
		add("ERROR", "Chart.yaml", "version '%s' is not a valid SemVer", meta.Version)
	}
	if meta.AppVersion == "" {
		add("ERROR", "Chart.yaml", "appVersion is required (the default image tag)")
	}
	if meta.Description == "" {
		add("ERROR", "Chart.yaml", "description is required")
	}
	for _, m := range meta.Maintainers {
		switch {
		case m.Name == "":
			add("ERROR", "Chart.yaml", "each maintainer requires a name")
		case m.Email != "" && !govalidator.IsEmail(m.Email):
			add("ERROR", "Chart.yaml", "invalid email '%s' for maintainer '%s'", m.Email, m.Name)
		case m.URL != "" && !govalidator.IsURL(m.URL):
			add("ERROR", "Chart.yaml", "invalid url '%s' for maintainer '%s'", m.URL, m.Name)
		}
	}
	for _, s := range meta.Sources {
		if s == "" || !govalidator.IsRequestURL(s) {
			add("ERROR", "Chart.yaml", "invalid source URL '%s'", s)
		}
	}
	if meta.Icon == "" {
		add("INFO", "Chart.yaml", "icon is recommended")
	} else if !govalidator.IsRequestURL(meta.Icon) {
		add("ERROR", "Chart.yaml", "invalid icon URL '%s'", meta.Icon)
	}
	if meta.Annotations["artifacthub.io/license"] == "" {
		add("ERROR", "Chart.yaml", "annotation artifacthub.io/license is required (the SPDX license of the chart)")
	}
	if meta.Type != "" && meta.Type != "application" {
		add("ERROR", "Chart.yaml", "chart type %q is not installable", meta.Type)
	}
	if meta.KubeVersion != "" {
		if _, err := semver.NewConstraint(meta.KubeVersion); err != nil {
			add("ERROR", "Chart.yaml", "kubeVersion %q is not a valid constraint: %v", meta.KubeVersion, err)
		}
	}

	c, err := loadChart(dir)
	if err != nil {
		add("ERROR", "", "%v", err)
		return out
	}
	if c.Schema == nil {
		add("ERROR", "values.schema.json", "file does not exist")
	}
	if _, err := os.Stat(filepath.Join(dir, "templates")); err != nil {
		add("ERROR", "templates/", "directory does not exist")
		return out
	}
	rendered, err := renderRelease(c, Release{Name: "test-release", Namespace: "test-namespace", Values: userValues,
		Strict: true})
	if err != nil {
		add("ERROR", "templates/", "%v", err)
		return out
	}
	for _, m := range rendered.Manifests {
		var obj map[string]interface{}
		if err := yaml.Unmarshal([]byte(m.Content), &obj); err != nil {
			add("ERROR", m.Source, "unable to parse YAML: %v", err)
			continue
		}
		if obj["apiVersion"] == nil || obj["apiVersion"] == "" {
			add("ERROR", m.Source, "object has no apiVersion field")
		}
		if obj["kind"] == nil || obj["kind"] == "" {
			add("ERROR", m.Source, "object has no kind field")
		}
		if !dns1123Subdomain.MatchString(m.Name) || len(m.Name) > 253 {
			add("ERROR", m.Source, "object name does not conform to Kubernetes naming requirements: %q", m.Name)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// printLint prints as `helm lint` and returns whether the chart passes (with strict,
// a warning fails too).
func printLint(dir string, findings []finding, strict bool) bool {
	failed := false
	fmt.Printf("==> Linting %s\n", dir)
	for _, f := range findings {
		where := f.path
		if where != "" {
			where += ": "
		}
		fmt.Printf("[%s] %s%s\n", f.severity, where, strings.ReplaceAll(f.msg, "\n", "\n"))
		if f.severity == "ERROR" || (strict && f.severity == "WARNING") {
			failed = true
		}
	}
	n := 0
	if failed {
		n = 1
	}
	fmt.Printf("\n1 chart(s) linted, %d chart(s) failed\n", n)
	return !failed
}
