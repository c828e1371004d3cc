// Values as Helm assembles them: values files read with sigs.k8s.io/yaml (every number a
// float64, YAML 1.1 booleans such as `y`), later files over earlier ones, `--set` over
// the files (integers int64, as Helm's strvals), and the result coalesced over the
// chart's values.yaml (a user's null deletes a default).
package main

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

func readValues(data []byte) (map[string]interface{}, error) {
	var vals map[string]interface{}
	err := yaml.Unmarshal(data, &vals)
	if len(vals) == 0 {
		vals = map[string]interface{}{}
	}
	return vals, err
}

// mergeMaps: b over a, maps merged key by key (Helm's values.MergeValues for -f files).
func mergeMaps(a, b map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if vm, ok := v.(map[string]interface{}); ok {
			if bv, ok := out[k]; ok {
				if bvm, ok := bv.(map[string]interface{}); ok {
					out[k] = mergeMaps(bvm, vm)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

// coalesce returns the user's values with the chart's defaults filled in where the
// user has no key; a key the user sets to null is removed.
func coalesce(user, defaults map[string]interface{}) map[string]interface{} {
	out := deepCopyMap(user)
	for k, dv := range defaults {
		uv, present := out[k]
		switch {
		case !present:
			if dv != nil {
				out[k] = deepCopy(dv)
			}
		case uv == nil:
			delete(out, k)
		default:
			um, uok := uv.(map[string]interface{})
			dm, dok := dv.(map[string]interface{})
			if uok && dok {
				out[k] = coalesce(um, dm)
			}
		}
	}
	// A null the user wrote under a key the chart does not have: gone too.
	for k, v := range out {
		if v == nil {
			delete(out, k)
		}
	}
	return out
}

func deepCopy(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		return deepCopyMap(t)
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	default:
		return v
	}
}

func deepCopyMap(m map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(m))
	for k, v := range m {
		out[k] = deepCopy(v)
	}
	return out
}

// applySet applies one --set (asString: --set-string) argument: comma-separated
// `a.b.c=value` pairs; `\.` and `\,` escape; a value `{x,y}` is a list. Typed as Helm's
// strvals: true/false, null, integers without a leading zero (int64), else a string.
func applySet(vals map[string]interface{}, arg string, asString bool) error {
	for _, pair := range splitUnescaped(arg, ',', true) {
		eq := indexUnescaped(pair, '=')
		if eq < 0 {
			return fmt.Errorf("key %q has no value", unescape(pair))
		}
		path := splitUnescaped(pair[:eq], '.', false)
		raw := pair[eq+1:]
		var value interface{}
		if strings.HasPrefix(raw, "{") && strings.HasSuffix(raw, "}") {
			list := []interface{}{}
			inner := raw[1 : len(raw)-1]
			if inner != "" {
				for _, item := range splitUnescaped(inner, ',', false) {
					list = append(list, typedValue(unescape(item), asString))
				}
			}
			value = list
		} else {
			value = typedValue(unescape(raw), asString)
		}
		cur := vals
		for i, p := range path {
			key := unescape(p)
			if key == "" {
				return fmt.Errorf("key %q has an empty segment", unescape(pair[:eq]))
			}
			if i == len(path)-1 {
				cur[key] = value
				break
			}
			next, ok := cur[key].(map[string]interface{})
			if !ok {
				next = map[string]interface{}{}
				cur[key] = next
			}
			cur = next
		}
	}
	return nil
}

func typedValue(v string, asString bool) interface{} {
	if asString {
		return v
	}
	switch {
	case strings.EqualFold(v, "true"):
		return true
	case strings.EqualFold(v, "false"):
		return false
	case strings.EqualFold(v, "null"):
		return nil
	case v == "0":
		return int64(0)
	}
	if v != "" && v[0] != '0' {
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			return i
		}
	}
	return v
}

// splitUnescaped splits s at sep not preceded by a backslash; with braces, a sep
// inside {...} does not split (a list value).
func splitUnescaped(s string, sep byte, braces bool) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case braces && s[i] == '{':
			depth++
		case braces && s[i] == '}' && depth > 0:
			depth--
		case s[i] == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func indexUnescaped(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
		} else if s[i] == c {
			return i
		}
	}
	return -1
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
