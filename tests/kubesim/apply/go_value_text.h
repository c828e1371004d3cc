// kube-sim: JSON values written the way Go's fmt writes the decoded value (`%v` of an
// `interface{}` holding map[string]interface{}, []interface{}, string, int64, float64, bool
// or nil) and the name reflect gives its type. apimachinery puts both into the messages of
// its patch errors ("map: map[image:x] does not contain declared merge key: name"), and
// kube-sim repeats those messages word for word.
//
// Integral numbers are int64 and the rest float64, as the API server decodes them.
// Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kubesim::apply {

// `fmt.Sprintf("%v", v)`: maps as map[k:v ...] with sorted keys, lists as [a b], strings
// bare, null as <nil>, floats in Go's shortest %g form.
std::string go_value_text(const nlohmann::json& v);

// `reflect.TypeOf(v).String()`: "map[string]interface {}", "[]interface {}", "string",
// "int64", "float64", "bool"; null has no type and prints as "%!s(<nil>)" through %s.
std::string go_type_text(const nlohmann::json& v);

// Whether two decoded values compare equal with Go's `==` on interface{} (scalars only:
// an int64 never equals a float64).
bool go_scalar_equal(const nlohmann::json& a, const nlohmann::json& b);

// The reflect type of `v` reduced to what decides whether two list elements have "the
// same type": 'm' map, 'l' list, 's' string, 'b' bool, 'i' int64, 'f' float64, 'n' null.
char go_kind(const nlohmann::json& v);

}  // namespace kubesim::apply
