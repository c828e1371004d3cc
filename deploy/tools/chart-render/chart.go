// A chart directory as Helm's loader reads it: Chart.yaml into Metadata, values.yaml,
// values.schema.json, the templates, and every other file as .Files.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Maintainer, Dependency and Metadata have the fields (and JSON names) of Helm's
// chart.Metadata, so templates read .Chart.Name, .Chart.AppVersion... as under Helm, and a
// field Helm does not know (e.g. `license:`) is what a strict load reports.
type Maintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

type Dependency struct {
	Name         string        `json:"name"`
	Version      string        `json:"version,omitempty"`
	Repository   string        `json:"repository"`
	Condition    string        `json:"condition,omitempty"`
	Tags         []string      `json:"tags,omitempty"`
	Enabled      bool          `json:"enabled,omitempty"`
	ImportValues []interface{} `json:"import-values,omitempty"`
	Alias        string        `json:"alias,omitempty"`
}

type Metadata struct {
	Name         string            `json:"name,omitempty"`
	Home         string            `json:"home,omitempty"`
	Sources      []string          `json:"sources,omitempty"`
	Version      string            `json:"version,omitempty"`
	Description  string            `json:"description,omitempty"`
	Keywords     []string          `json:"keywords,omitempty"`
	Maintainers  []*Maintainer     `json:"maintainers,omitempty"`
	Icon         string            `json:"icon,omitempty"`
	APIVersion   string            `json:"apiVersion,omitempty"`
	Condition    string            `json:"condition,omitempty"`
	Tags         string            `json:"tags,omitempty"`
	AppVersion   string            `json:"appVersion,omitempty"`
	Deprecated   bool              `json:"deprecated,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	KubeVersion  string            `json:"kubeVersion,omitempty"`
	Dependencies []*Dependency     `json:"dependencies,omitempty"`
	Type         string            `json:"type,omitempty"`
}

// Chart is one loaded chart directory (no subcharts: this chart has none, and a
// `charts/` directory is refused rather than silently ignored).
type Chart struct {
	Dir       string
	Metadata  *Metadata
	Values    map[string]interface{}
	Schema    []byte // nil without values.schema.json
	Templates map[string]string
	Files     Files
}

func loadChart(dir string) (*Chart, error) {
	c := &Chart{Dir: dir, Templates: map[string]string{}, Files: Files{}}
	raw, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil, err
	}
	c.Metadata = &Metadata{}
	if err := yaml.Unmarshal(raw, c.Metadata); err != nil {
		return nil, fmt.Errorf("cannot load Chart.yaml: %v", err)
	}
	if c.Metadata.Name == "" {
		return nil, fmt.Errorf("validation: chart.metadata.name is required")
	}
	if raw, err = os.ReadFile(filepath.Join(dir, "values.yaml")); err == nil {
		if c.Values, err = readValues(raw); err != nil {
			return nil, fmt.Errorf("cannot load values.yaml: %v", err)
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	} else {
		c.Values = map[string]interface{}{}
	}
	if raw, err = os.ReadFile(filepath.Join(dir, "values.schema.json")); err == nil {
		c.Schema = raw
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	err = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if info.IsDir() {
			if rel == "charts" {
				return fmt.Errorf("%s: subcharts are not supported", path)
			}
			return nil
		}
		switch {
		case rel == "Chart.yaml" || rel == "values.yaml" || rel == "values.schema.json" || rel == ".helmignore":
			return nil
		case strings.HasPrefix(rel, "templates/"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			c.Templates[rel] = string(data)
		default:
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			c.Files[rel] = data
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// templateNames: the chart's templates, sorted.
func (c *Chart) templateNames() []string {
	out := make([]string, 0, len(c.Templates))
	for k := range c.Templates {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
