// values.schema.json checked as Helm checks it: the coalesced values marshalled to YAML,
// converted to JSON and validated with gojsonschema; one "- path: message" line per error.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/xeipuuv/gojsonschema"
	"sigs.k8s.io/yaml"
)

func validateValues(schema []byte, values map[string]interface{}) (reterr error) {
	defer func() {
		if r := recover(); r != nil {
			reterr = fmt.Errorf("unable to validate schema: %s", r)
		}
	}()
	data, err := yaml.Marshal(values)
	if err != nil {
		return err
	}
	valuesJSON, err := yaml.YAMLToJSON(data)
	if err != nil {
		return err
	}
	if bytes.Equal(valuesJSON, []byte("null")) {
		valuesJSON = []byte("{}")
	}
	compiled, err := gojsonschema.NewSchemaLoader().Compile(gojsonschema.NewBytesLoader(schema))
	if err != nil {
		return fmt.Errorf("unable to compile schema: %s", err)
	}
	result, err := compiled.Validate(gojsonschema.NewBytesLoader(valuesJSON))
	if err != nil {
		return err
	}
	if result.Valid() {
		return nil
	}
	var sb strings.Builder
	for _, desc := range result.Errors() {
		sb.WriteString(fmt.Sprintf("- %s\n", desc))
	}
	return errors.New(sb.String())
}
