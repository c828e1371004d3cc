// The template engine of Helm: Go's text/template with sprig's functions (minus env and
// expandenv), Helm's toYaml/fromYaml/toJson/fromJson, and the late-bound include, tpl,
// required and fail; lookup answers an empty map (no cluster, as `helm template`).
// Every template of the chart is parsed into one set, so each may include the others'
// definitions; files whose name starts with `_` are not rendered themselves. Errors read
// as Helm's: "execution error at (chart/templates/x.yaml:3:5): message".
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"sigs.k8s.io/yaml"
)

const (
	warnStart     = "HELM_ERR_START"
	warnEnd       = "HELM_ERR_END"
	includeLimit  = 1000
	notesFileName = "NOTES.txt"
)

var warnPattern = regexp.MustCompile(warnStart + `((?s).*)` + warnEnd)

func warnWrap(msg string) string { return warnStart + msg + warnEnd }

// renderable: a template's text and the values it is executed with.
type renderable struct {
	text     string
	vals     map[string]interface{}
	basePath string
}

type engine struct {
	strict bool // missingkey=error, as `helm template --strict`
}

func baseFuncs() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	extra := template.FuncMap{
		"toYaml":        toYAML,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"lookup": func(string, string, string, string) (map[string]interface{}, error) {
			return map[string]interface{}{}, nil
		},
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

// toYAML is sigs.k8s.io/yaml's Marshal with the trailing newline trimmed; an error
// renders as "" (Helm swallows it inside a template).
func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYAML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(s string) []interface{} {
	a := []interface{}{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

// render executes every template of tpls (those not starting with `_`); refs are the
// templates their include/tpl may name (tpls itself for a chart render).
func (e engine) render(tpls, refs map[string]renderable) (out map[string]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	t := template.New("gotpl")
	if e.strict {
		t.Option("missingkey=error")
	} else {
		t.Option("missingkey=zero")
	}
	e.bindFuncs(t, refs)
	for _, name := range sortedByDepth(tpls) {
		if _, err := t.New(name).Parse(tpls[name].text); err != nil {
			return nil, cleanupParseError(name, err)
		}
	}
	for _, name := range sortedByDepth(refs) {
		if t.Lookup(name) == nil {
			if _, err := t.New(name).Parse(refs[name].text); err != nil {
				return nil, cleanupParseError(name, err)
			}
		}
	}
	out = map[string]string{}
	for _, name := range sortedByDepth(tpls) {
		if strings.HasPrefix(path.Base(name), "_") {
			continue
		}
		vals := tpls[name].vals
		vals["Template"] = map[string]interface{}{"Name": name, "BasePath": tpls[name].basePath}
		var buf strings.Builder
		if err := t.ExecuteTemplate(&buf, name, vals); err != nil {
			return nil, cleanupExecError(name, err)
		}
		// missingkey=zero still prints "<no value>" for a missing map key.
		out[name] = strings.ReplaceAll(buf.String(), "<no value>", "")
	}
	return out, nil
}

func (e engine) bindFuncs(t *template.Template, refs map[string]renderable) {
	funcs := baseFuncs()
	depth := map[string]int{}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		if depth[name] > includeLimit {
			return "", fmt.Errorf("rendering template has a nested reference name: %s: unable to execute template", name)
		}
		depth[name]++
		defer func() { depth[name]-- }()
		var buf strings.Builder
		err := t.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, vals map[string]interface{}) (string, error) {
		tmpl, _ := vals["Template"].(map[string]interface{})
		name, _ := tmpl["Name"].(string)
		base, _ := tmpl["BasePath"].(string)
		if name == "" {
			return "", fmt.Errorf("cannot retrieve Template.Name from values inside tpl function: %s", text)
		}
		res, err := e.render(map[string]renderable{name: {text: text, vals: vals, basePath: base}}, refs)
		if err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %v", text, err)
		}
		return res[name], nil
	}
	funcs["required"] = func(warn string, val interface{}) (interface{}, error) {
		if val == nil {
			return val, errors.New(warnWrap(warn))
		}
		if s, ok := val.(string); ok && s == "" {
			return val, errors.New(warnWrap(warn))
		}
		return val, nil
	}
	funcs["fail"] = func(msg string) (string, error) {
		return "", errors.New(warnWrap(msg))
	}
	t.Funcs(funcs)
}

// sortedByDepth: deeper paths first, then by name (the order Helm parses in).
func sortedByDepth(m map[string]renderable) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ci, cj := strings.Count(keys[i], "/"), strings.Count(keys[j], "/")
		if ci == cj {
			return keys[i] > keys[j]
		}
		return ci > cj
	})
	return keys
}

func cleanupParseError(name string, err error) error {
	tokens := strings.Split(err.Error(), ": ")
	if len(tokens) == 1 {
		return fmt.Errorf("parse error in (%s): %s", name, err)
	}
	return fmt.Errorf("parse error at (%s): %s", tokens[1], tokens[len(tokens)-1])
}

func cleanupExecError(name string, err error) error {
	if _, ok := err.(template.ExecError); !ok {
		return err
	}
	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		return fmt.Errorf("execution error in (%s): %s", name, err)
	}
	if parts := warnPattern.FindStringSubmatch(tokens[2]); len(parts) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", tokens[1], parts[1])
	}
	return err
}
