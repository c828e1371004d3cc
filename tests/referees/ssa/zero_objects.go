// The objects kube-apiserver starts a create from: `creater.New(kind)` rendered to JSON, the
// zero value of the kind's Go type (structs that are not pointers appear as {}, fields without
// omitempty as null). A create is an update from this object, so what it already has (a
// Deployment's `spec.strategy`, `spec.template`...) is not a change the creating manager gets
// to own, while maps and pointer structs the create fills are (`.metadata.labels`...).
// Custom resources start from an empty unstructured object.
package main

import "encoding/json"

const object_meta_zero = `{"creationTimestamp":null}`
const pod_template_zero = `{"metadata":` + object_meta_zero + `,"spec":{"containers":null}}`

var zero_objects = map[string]string{
	"apps/v1/Deployment": `{"metadata":` + object_meta_zero + `,"spec":{"selector":null,"template":` +
		pod_template_zero + `,"strategy":{}},"status":{}}`,
	"batch/v1/Job": `{"metadata":` + object_meta_zero + `,"spec":{"template":` + pod_template_zero +
		`},"status":{}}`,
	"v1/Service":   `{"metadata":` + object_meta_zero + `,"spec":{},"status":{"loadBalancer":{}}}`,
	"v1/ConfigMap": `{"metadata":` + object_meta_zero + `}`,
}

// zero_object returns the starting object of a create of `kind` named `name`.
func zero_object(api_version, kind, name, namespace string) map[string]interface{} {
	obj := map[string]interface{}{}
	if z, ok := zero_objects[api_version+"/"+kind]; ok {
		if err := json.Unmarshal([]byte(z), &obj); err != nil {
			panic(err)
		}
	}
	obj["apiVersion"] = api_version
	obj["kind"] = kind
	meta, _ := obj["metadata"].(map[string]interface{})
	if meta == nil {
		meta = map[string]interface{}{}
		obj["metadata"] = meta
	}
	if name != "" {
		meta["name"] = name
	}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	return obj
}
