// The recipe catalog: the tuned DGDs under recipes/[<family>/]<model>/<framework>/<target>/
// deploy.yaml (deploy-generic.yaml where a target has provider variants), compiled into the
// binary once (cmake/embed.cmake), so the Kustomize folders, the recipe pages' commands,
// the golden tests and the operator read the same bytes.
//
// A recipe's name is the last three folders of its path, e.g.
// "deepseek-v4.1-flash/vllm/disagg-h200-agentic" or "deepseek-v4-flash/vllm/agg-b200-agentic"
// (recipes/deepseek-v4/deepseek-v4-flash/vllm/agg-b200-agentic/deploy.yaml).
// Catalog objects are immutable after construction and safe to share between threads.
// Pure: no I/O (the embedded files are data in the binary).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dgd/api/dgd.h"
#include "dgd/api/field_error.h"
#include "dgd/common/embedded.h"

namespace dgd::recipes {

struct Recipe {
  std::string name;       // "deepseek-v4.1-flash/vllm/disagg-h200-agentic"
  std::string model;      // "deepseek-v4.1-flash"
  std::string framework;  // "vllm" | "sglang"
  std::string target;     // "disagg-h200-agentic"
  std::string path;       // relative to recipes/: "deepseek-v4/deepseek-v4-flash/vllm/agg-b200-agentic/deploy.yaml"
  std::string source;     // the file's text, unchanged

  // The parsed DGD (typed form) and api::to_json of it (expand's overlay). Parsed on
  // first use, once, thread-safe: a process mostly needs one or two of the recipes, and
  // parsing all of them cost `dgdctl render` more CPU than rendering.
  const api::Dgd& dgd() const;
  const nlohmann::json& document() const;

 private:
  friend class Catalog;
  struct Parsed;
  std::shared_ptr<Parsed> parsed_;
};

class Catalog {
 public:
  // The recipes embedded in this binary, read from their build-time JSON form. Built once
  // on first use. A recipe that does not parse is a build defect, caught by unit_recipes;
  // here it reads as an empty DGD.
  static const Catalog& builtin();

  // A catalog from files named "[<family>/]<model>/<framework>/<target>/deploy.yaml" or
  // ".../deploy-generic.yaml" (other files are ignored; a second DGD file for one name is
  // an error). Each file's `json`, where set, is read instead of its YAML text. With `errors`, every recipe is parsed now, problems are appended with the
  // file path as the field path and recipes that do not parse are left out; without, each
  // recipe is parsed on first use.
  static Catalog from_files(const std::vector<EmbeddedFile>& files,
                           std::vector<api::FieldError>* errors);

  // Recipes sorted by name.
  const std::vector<Recipe>& all() const { return recipes_; }

  // The recipe with this exact name, or nullptr.
  const Recipe* find(std::string_view name) const;

  // Why `name` is not a recipe, in one message a user can act on: for SGLang on B200 or
  // H200 it says there is no such recipe and names the vLLM and SGLang GB200 ones;
  // otherwise it lists the closest names (same model or framework) or all of them.
  std::string explain_missing(std::string_view name) const;

 private:
  static Catalog build(const std::vector<EmbeddedFile>& files, std::vector<api::FieldError>* errors);

  std::vector<Recipe> recipes_;
};

// An embedded support file by path relative to recipes/ (e.g. "scripts/select-rdma-nics.sh"),
// or nullptr.
const std::string* embedded_file(std::string_view path);

}  // namespace dgd::recipes
