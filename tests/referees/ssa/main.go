// ssa-referee: replays server-side apply and update requests on one object at a time with
// structured-merge-diff, as kube-apiserver's field manager does, and prints after each request
// the object, each manager's field set and the conflicts. Protocol (JSON lines on stdin, one
// answer line on stdout per request):
//
//	{"op":"begin","apiVersion":"apps/v1","kind":"Deployment","resetFields":["status"]}
//	{"op":"apply","manager":"a","force":false,"object":{...},"server":{...}}
//	{"op":"update","manager":"b","object":{...},"server":{...}}   (PUT, or POST when absent)
//	{"op":"update","manager":"b","patch":{...},"server":{...}}    (JSON merge patch)
//
// A request may carry "state": the object (with managedFields) the server held before it,
// or null; the referee then starts from that state instead of its own.
//
// "server" is the object the server under test answered (null when it refused): the referee
// takes from it only the defaults (fields no request carried), and decodes its managedFields.
//
// Usage: ssa-referee SWAGGER.json [CRD.yaml...]
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	jsonpatch "github.com/evanphx/json-patch"
	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v4/typed"
)

type request struct {
	Op          string                 `json:"op"`
	APIVersion  string                 `json:"apiVersion"`
	Kind        string                 `json:"kind"`
	ResetFields []string               `json:"resetFields"`
	Manager     string                 `json:"manager"`
	Force       bool                   `json:"force"`
	Object      map[string]interface{} `json:"object"`
	Patch       json.RawMessage        `json:"patch"`
	Server      map[string]interface{} `json:"server"`
	State       json.RawMessage        `json:"state"`
}

type answer struct {
	Conflicts     []conflict          `json:"conflicts"`
	Object        interface{}         `json:"object"`
	Managed       map[string][]string `json:"managed"`
	ServerObject  interface{}         `json:"server_object,omitempty"`
	ServerManaged map[string][]string `json:"server_managed,omitempty"`
	Error         string              `json:"error,omitempty"`
	ServerError   string              `json:"server_error,omitempty"`
}

func set_paths(s *fieldpath.Set) []string {
	out := []string{}
	s.Iterate(func(p fieldpath.Path) { out = append(out, p.String()) })
	sort.Strings(out)
	return out
}

func strip_server_metadata(obj map[string]interface{}) {
	if meta, ok := obj["metadata"].(map[string]interface{}); ok {
		for _, f := range server_metadata {
			delete(meta, f)
		}
	}
}

// decode_managed decodes the FieldsV1 of each managedFields entry with the library's decoder.
func decode_managed(obj map[string]interface{}) (fieldpath.ManagedFields, error) {
	out := fieldpath.ManagedFields{}
	meta, _ := obj["metadata"].(map[string]interface{})
	entries, _ := meta["managedFields"].([]interface{})
	for _, e := range entries {
		entry, _ := e.(map[string]interface{})
		operation := fmt.Sprint(entry["operation"])
		key := manager_key(fmt.Sprint(entry["manager"]), operation)
		if sub, ok := entry["subresource"].(string); ok && sub != "" {
			key += "/" + sub
		}
		raw, err := json.Marshal(entry["fieldsV1"])
		if err != nil {
			return nil, err
		}
		set := fieldpath.NewSet()
		if err := set.FromJSON(strings.NewReader(string(raw))); err != nil {
			return nil, fmt.Errorf("managedFields of %s: %v", key, err)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("managedFields has two entries for %s", key)
		}
		version := fieldpath.APIVersion(fmt.Sprint(entry["apiVersion"]))
		out[key] = fieldpath.NewVersionedSet(set, version, operation == "Apply")
	}
	return out, nil
}

func managed_paths(m fieldpath.ManagedFields) map[string][]string {
	out := map[string][]string{}
	for k, vs := range m {
		out[k] = set_paths(vs.Set())
	}
	return out
}

type referee struct {
	tc    *type_converter
	state *object_state
}

func (r *referee) handle(req *request) (a answer) {
	a.Managed = map[string][]string{}
	if req.Op == "begin" {
		pt, err := r.tc.type_for(req.APIVersion, req.Kind)
		if err != nil {
			r.state = nil
			a.Error = err.Error()
			return a
		}
		r.state = new_object_state(pt, req.APIVersion, req.Kind, req.ResetFields)
		return a
	}
	s := r.state
	if s == nil {
		a.Error = "no begin"
		return a
	}
	if len(req.State) > 0 {
		if err := r.adopt(req.State); err != nil {
			a.ServerError = "state: " + err.Error()
			return a
		}
	}
	var server *typed.TypedValue
	if req.Server != nil {
		managed, err := decode_managed(req.Server)
		if err != nil {
			a.ServerError = err.Error()
		}
		a.ServerManaged = managed_paths(managed)
		strip_server_metadata(req.Server)
		if server, err = s.pt.FromUnstructured(req.Server); err != nil {
			a.ServerError = "server object: " + err.Error()
			server = nil
		} else {
			a.ServerObject = server.AsValue().Unstructured()
		}
	}
	err := r.step(req, server, &a)
	if err != nil {
		a.Error = err.Error()
	}
	if s.live != nil {
		a.Object = s.live.AsValue().Unstructured()
	}
	a.Managed = managed_paths(s.managed)
	return a
}

// adopt makes `raw` (an object with its managedFields, or null: absent) the state the next
// request starts from, so that each request is judged on its own.
func (r *referee) adopt(raw json.RawMessage) error {
	s := r.state
	var obj map[string]interface{}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return err
	}
	if obj == nil {
		s.live, s.managed = nil, fieldpath.ManagedFields{}
		return nil
	}
	managed, err := decode_managed(obj)
	if err != nil {
		return err
	}
	strip_server_metadata(obj)
	live, err := s.pt.FromUnstructured(obj)
	if err != nil {
		return err
	}
	s.live, s.managed = live, managed
	return nil
}

func (r *referee) step(req *request, server *typed.TypedValue, a *answer) error {
	s := r.state
	switch req.Op {
	case "apply":
		conflicts, err := s.apply(req.Manager, req.Force, req.Object)
		if err != nil || conflicts != nil {
			a.Conflicts = conflicts
			return err
		}
		if server != nil {
			live, err := s.with_server_defaults(s.live, server)
			if err != nil {
				return fmt.Errorf("defaults: %v", err)
			}
			s.live = live
		}
		return nil
	case "update":
		var obj map[string]interface{}
		if req.Object != nil {
			obj = req.Object
			strip_server_metadata(obj)
		} else {
			if s.live == nil {
				return fmt.Errorf("merge patch of an absent object")
			}
			live_json, err := json.Marshal(s.live.AsValue().Unstructured())
			if err != nil {
				return err
			}
			merged, err := jsonpatch.MergePatch(live_json, req.Patch)
			if err != nil {
				return fmt.Errorf("merge patch: %v", err)
			}
			if err := json.Unmarshal(merged, &obj); err != nil {
				return err
			}
		}
		u, err := s.pt.FromUnstructured(obj)
		if err != nil {
			return fmt.Errorf("update object: %v", err)
		}
		if err := s.note_changed(u); err != nil {
			return err
		}
		if server == nil {
			return fmt.Errorf("the server refused the update")
		}
		if u, err = s.with_server_defaults(u, server); err != nil {
			return fmt.Errorf("defaults: %v", err)
		}
		return s.update(req.Manager, u)
	}
	return fmt.Errorf("unknown op %q", req.Op)
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ssa-referee SWAGGER.json [CRD.yaml...]")
		os.Exit(2)
	}
	tc, err := new_type_converter(os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "ssa-referee:", err)
		os.Exit(1)
	}
	r := &referee{tc: tc}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(out)
	fmt.Fprintln(out, `{"ready":true}`)
	out.Flush()
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var req request
			var a answer
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				a = answer{Error: "bad request: " + jerr.Error(), Managed: map[string][]string{}}
			} else {
				a = r.handle(&req)
			}
			enc.Encode(&a)
			if in.Buffered() == 0 {
				out.Flush()
			}
		}
		if err != nil {
			break
		}
	}
	out.Flush()
}
