// .Files: the chart's non-template files, with the accessors of Helm's engine (Get,
// GetBytes, Glob, Lines).
package main

import (
	"strings"

	"github.com/gobwas/glob"
)

// Files maps a path inside the chart (slash-separated) to the file's content.
type Files map[string][]byte

func (f Files) GetBytes(name string) []byte {
	if v, ok := f[name]; ok {
		return v
	}
	return []byte{}
}

func (f Files) Get(name string) string {
	return string(f.GetBytes(name))
}

// Glob returns the files whose path matches pattern ('/' separates path elements, as
// in Helm: `*` does not cross a directory).
func (f Files) Glob(pattern string) Files {
	g, err := glob.Compile(pattern, '/')
	if err != nil {
		g, _ = glob.Compile("**")
	}
	out := Files{}
	for name, data := range f {
		if g.Match(name) {
			out[name] = data
		}
	}
	return out
}

func (f Files) Lines(path string) []string {
	if f == nil || f[path] == nil {
		return []string{}
	}
	s := string(f[path])
	if s != "" && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return strings.Split(s, "\n")
}
