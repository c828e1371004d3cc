// Builds the structured-merge-diff type converter the way kube-apiserver's field manager does:
// OpenAPI v2 document -> kube-openapi proto.Models -> schemaconv.ToSchema -> typed.Parser, and
// types looked up by their x-kubernetes-group-version-kind. A CRD's structural openAPIV3Schema
// is added as one more definition first, shaped as the apiextensions OpenAPI builder shapes it
// (metadata as a reference to ObjectMeta, value validations dropped).
package main

import (
	"encoding/json"
	"fmt"
	"io/ioutil"

	openapi_v2 "github.com/googleapis/gnostic/OpenAPIv2"
	yamlv2 "gopkg.in/yaml.v2"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/util/proto"
	"sigs.k8s.io/structured-merge-diff/v4/typed"
	"sigs.k8s.io/yaml"
)

type type_converter struct {
	parser *typed.Parser
	by_gvk map[string]string // "group/version/kind" -> type name
}

const object_meta_ref = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

// The keywords the apiextensions builder keeps for apply: structure and the x-kubernetes
// extensions; value validations (pattern, enum, minimum, CEL rules...) and defaults go.
var kept_keywords = map[string]bool{
	"type": true, "format": true, "x-kubernetes-list-type": true, "x-kubernetes-list-map-keys": true,
	"x-kubernetes-map-type": true, "x-kubernetes-preserve-unknown-fields": true,
	"x-kubernetes-embedded-resource": true,
}

func structural_to_v2(node map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range node {
		if kept_keywords[k] {
			out[k] = v
		}
	}
	if b, _ := node["x-kubernetes-int-or-string"].(bool); b {
		// OpenAPI v2 has no int-or-string type: the builder writes an untyped node, which
		// schemaconv turns into an untyped scalar.
		delete(out, "type")
		out["format"] = "int-or-string"
		out["type"] = "string"
	}
	if props, ok := node["properties"].(map[string]interface{}); ok {
		p := map[string]interface{}{}
		for name, child := range props {
			if m, ok := child.(map[string]interface{}); ok {
				p[name] = structural_to_v2(m)
			}
		}
		out["properties"] = p
	}
	if items, ok := node["items"].(map[string]interface{}); ok {
		out["items"] = structural_to_v2(items)
	}
	if ap, ok := node["additionalProperties"].(map[string]interface{}); ok {
		out["additionalProperties"] = structural_to_v2(ap)
	}
	return out
}

// crd_definitions returns one definition per served version of the CRD in `path` (YAML).
func crd_definitions(path string) (map[string]interface{}, error) {
	raw, err := ioutil.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var crd map[string]interface{}
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	spec, _ := crd["spec"].(map[string]interface{})
	group, _ := spec["group"].(string)
	names, _ := spec["names"].(map[string]interface{})
	kind, _ := names["kind"].(string)
	versions, _ := spec["versions"].([]interface{})
	defs := map[string]interface{}{}
	for _, v := range versions {
		ver, _ := v.(map[string]interface{})
		name, _ := ver["name"].(string)
		sch, _ := ver["schema"].(map[string]interface{})
		root, _ := sch["openAPIV3Schema"].(map[string]interface{})
		if root == nil {
			continue
		}
		def := structural_to_v2(root)
		props, _ := def["properties"].(map[string]interface{})
		if props == nil {
			props = map[string]interface{}{}
			def["properties"] = props
		}
		props["metadata"] = map[string]interface{}{"$ref": object_meta_ref}
		props["apiVersion"] = map[string]interface{}{"type": "string"}
		props["kind"] = map[string]interface{}{"type": "string"}
		def["type"] = "object"
		def["x-kubernetes-group-version-kind"] = []interface{}{
			map[string]interface{}{"group": group, "version": name, "kind": kind},
		}
		defs[fmt.Sprintf("crd.%s.%s.%s", group, name, kind)] = def
	}
	return defs, nil
}

func new_type_converter(swagger_path string, crd_paths []string) (*type_converter, error) {
	raw, err := ioutil.ReadFile(swagger_path)
	if err != nil {
		return nil, err
	}
	var doc map[string]interface{}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", swagger_path, err)
	}
	defs, _ := doc["definitions"].(map[string]interface{})
	for _, p := range crd_paths {
		crd_defs, err := crd_definitions(p)
		if err != nil {
			return nil, err
		}
		for k, v := range crd_defs {
			defs[k] = v
		}
	}
	// The apiserver builds its models from the definitions; paths are irrelevant to apply.
	doc["paths"] = map[string]interface{}{}
	raw, err = json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	gdoc, err := openapi_v2.ParseDocument(raw)
	if err != nil {
		return nil, fmt.Errorf("gnostic: %v", err)
	}
	models, err := proto.NewOpenAPIData(gdoc)
	if err != nil {
		return nil, fmt.Errorf("proto models: %v", err)
	}
	smd_schema, err := schemaconv.ToSchema(models)
	if err != nil {
		return nil, fmt.Errorf("schemaconv: %v", err)
	}
	schema_yaml, err := yamlv2.Marshal(smd_schema)
	if err != nil {
		return nil, err
	}
	parser, err := typed.NewParser(typed.YAMLObject(schema_yaml))
	if err != nil {
		return nil, fmt.Errorf("smd parser: %v", err)
	}
	tc := &type_converter{parser: parser, by_gvk: map[string]string{}}
	for _, name := range models.ListModels() {
		ext := models.LookupModel(name).GetExtensions()
		gvks, _ := ext["x-kubernetes-group-version-kind"].([]interface{})
		for _, g := range gvks {
			m, ok := g.(map[interface{}]interface{})
			if !ok {
				continue
			}
			key := fmt.Sprintf("%v/%v/%v", m["group"], m["version"], m["kind"])
			tc.by_gvk[key] = name
		}
	}
	return tc, nil
}

func (tc *type_converter) type_for(api_version, kind string) (typed.ParseableType, error) {
	group, version := "", api_version
	for i := range api_version {
		if api_version[i] == '/' {
			group, version = api_version[:i], api_version[i+1:]
		}
	}
	name, ok := tc.by_gvk[group+"/"+version+"/"+kind]
	if !ok {
		return typed.ParseableType{}, fmt.Errorf("no schema for %s %s", api_version, kind)
	}
	return tc.parser.Type(name), nil
}
