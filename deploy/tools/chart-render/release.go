// A release rendered as `helm template` renders it: values coalesced and checked against
// values.schema.json, kubeVersion checked, templates executed with .Release, .Chart,
// .Capabilities, .Files, then split into manifests and hooks in Helm's install order.
package main

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/Masterminds/semver"
	"sigs.k8s.io/yaml"
)

// The cluster `helm template` pretends to talk to: Kubernetes 1.32 (the version
// kube-sim and kubectl are), with its built-in API group versions.
const kubeVersion = "v1.32.0"

var builtinAPIVersions = VersionSet{
	"v1", "admissionregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "apiregistration.k8s.io/v1",
	"apps/v1", "authentication.k8s.io/v1", "authorization.k8s.io/v1", "autoscaling/v1", "autoscaling/v2",
	"batch/v1", "certificates.k8s.io/v1", "coordination.k8s.io/v1", "discovery.k8s.io/v1",
	"events.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1", "networking.k8s.io/v1", "node.k8s.io/v1",
	"policy/v1", "rbac.authorization.k8s.io/v1", "scheduling.k8s.io/v1", "storage.k8s.io/v1",
}

// VersionSet is .Capabilities.APIVersions.
type VersionSet []string

// Has is true for "group/version" or "group/version/Kind" the set holds.
func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

type KubeVersion struct {
	Version    string
	Major      string
	Minor      string
	GitVersion string
}

func (k KubeVersion) String() string { return k.Version }

type Capabilities struct {
	APIVersions VersionSet
	KubeVersion KubeVersion
	HelmVersion map[string]string
}

// Release is what one render needs to know about the release.
type Release struct {
	Name      string
	Namespace string
	Values    map[string]interface{} // the user's values (files, then --set)
	APIs      []string               // extra --api-versions
	SkipTests bool                   // leave out `helm.sh/hook: test` hooks
	Strict    bool
	NoSchema  bool // --skip-schema-validation
}

// Manifest is one YAML document of the output, with where it came from.
type Manifest struct {
	Source  string
	Content string
	Kind    string
	Name    string
	IsHook  bool
	Events  []string
}

type head struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind,omitempty"`
	Metadata   *struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata,omitempty"`
}

// Rendered is a release's manifests (install order, then hooks) and its NOTES.txt.
type Rendered struct {
	Manifests []Manifest
	Notes     string
	Values    map[string]interface{}
}

func renderRelease(c *Chart, r Release) (*Rendered, error) {
	vals := coalesce(r.Values, c.Values)
	if c.Schema != nil && !r.NoSchema {
		if err := validateValues(c.Schema, vals); err != nil {
			return nil, fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%s:\n%s",
				c.Metadata.Name, err.Error())
		}
	}
	caps := Capabilities{
		APIVersions: append(append(VersionSet{}, builtinAPIVersions...), r.APIs...),
		KubeVersion: KubeVersion{Version: kubeVersion, Major: "1", Minor: "32", GitVersion: kubeVersion},
		HelmVersion: map[string]string{"version": "v3"},
	}
	if kv := c.Metadata.KubeVersion; kv != "" {
		constraint, err := semver.NewConstraint(kv)
		if err != nil {
			return nil, fmt.Errorf("chart kubeVersion %q: %v", kv, err)
		}
		if !constraint.Check(semver.MustParse(kubeVersion)) {
			return nil, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", kv, kubeVersion)
		}
	}
	top := map[string]interface{}{
		"Release": map[string]interface{}{
			"Name": r.Name, "Namespace": r.Namespace, "Revision": 1, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false,
		},
		"Chart": struct {
			Metadata
			IsRoot bool
		}{*c.Metadata, true},
		"Capabilities": caps,
		"Values":       vals,
		"Files":        c.Files,
		"Subcharts":    map[string]interface{}{},
	}
	tpls := map[string]renderable{}
	base := path.Join(c.Metadata.Name, "templates")
	for name, text := range c.Templates {
		tpls[path.Join(c.Metadata.Name, name)] = renderable{text: text, vals: top, basePath: base}
	}
	files, err := engine{strict: r.Strict}.render(tpls, tpls)
	if err != nil {
		return nil, err
	}
	out := &Rendered{Values: vals}
	notesName := path.Join(base, notesFileName)
	out.Notes = files[notesName]
	for k := range files {
		if strings.HasSuffix(k, notesFileName) {
			delete(files, k)
		}
	}
	manifests, hooks, err := sortManifests(files)
	if err != nil {
		return nil, err
	}
	out.Manifests = manifests
	for _, h := range hooks {
		if r.SkipTests && hasEvent(h.Events, "test") {
			continue
		}
		out.Manifests = append(out.Manifests, h)
	}
	return out, nil
}

func hasEvent(events []string, e string) bool {
	for _, x := range events {
		if x == e {
			return true
		}
	}
	return false
}

var separator = regexp.MustCompile("(?:^|\\s*\n)---\\s*")

// splitManifests: the documents of one rendered file, in order, trimmed, empty ones gone.
func splitManifests(text string) []string {
	var out []string
	for _, d := range separator.Split(strings.TrimSpace(text), -1) {
		if d == "" {
			continue
		}
		out = append(out, strings.TrimSpace(d))
	}
	return out
}

// Helm's hook event names (`helm.sh/hook`); an unknown one drops the document, as in Helm.
var hookEvents = map[string]string{
	"pre-install": "pre-install", "post-install": "post-install", "pre-delete": "pre-delete",
	"post-delete": "post-delete", "pre-upgrade": "pre-upgrade", "post-upgrade": "post-upgrade",
	"pre-rollback": "pre-rollback", "post-rollback": "post-rollback", "test": "test", "test-success": "test",
}

func sortManifests(files map[string]string) (generic, hooks []Manifest, err error) {
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		content := files[name]
		if strings.HasPrefix(path.Base(name), "_") || strings.TrimSpace(content) == "" {
			continue
		}
		for _, doc := range splitManifests(content) {
			var h head
			if err := yaml.Unmarshal([]byte(doc), &h); err != nil {
				return nil, nil, fmt.Errorf("YAML parse error on %s: %v", name, err)
			}
			m := Manifest{Source: name, Content: doc, Kind: h.Kind}
			var annotations map[string]string
			if h.Metadata != nil {
				m.Name = h.Metadata.Name
				annotations = h.Metadata.Annotations
			}
			hookTypes, isHook := annotations["helm.sh/hook"]
			if !isHook {
				generic = append(generic, m)
				continue
			}
			m.IsHook = true
			known := true
			for _, ht := range strings.Split(hookTypes, ",") {
				e, ok := hookEvents[strings.ToLower(strings.TrimSpace(ht))]
				if !ok {
					known = false
					break
				}
				m.Events = append(m.Events, e)
			}
			if known {
				hooks = append(hooks, m)
			}
		}
	}
	sortByKind(generic)
	sortByKind(hooks)
	return generic, hooks, nil
}

// installOrder is Helm's InstallOrder (pkg/releaseutil/kind_sorter.go).
var installOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
	"PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
	"PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList",
	"ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList",
	"Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
}

// sortByKind: stable, by install order; unknown kinds last, alphabetically among themselves.
func sortByKind(ms []Manifest) {
	rank := map[string]int{}
	for i, k := range installOrder {
		rank[k] = i
	}
	sort.SliceStable(ms, func(i, j int) bool {
		a, aok := rank[ms[i].Kind]
		b, bok := rank[ms[j].Kind]
		switch {
		case !aok && !bok:
			return ms[i].Kind < ms[j].Kind
		case !aok:
			return false
		case !bok:
			return true
		}
		return a < b
	})
}

// manifestText is `helm template`'s output: each document under a "# Source:" line.
func manifestText(ms []Manifest) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Source, m.Content)
	}
	return b.String()
}
