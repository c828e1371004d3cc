#include "cli/dgdctl/commands.h"

#include <optional>
#include <ostream>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/bounded_text.h"
#include "cli/dgdctl/input.h"
#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/api/yaml.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"

namespace dgd::cli {
namespace {

using nlohmann::json;

// Several documents: YAML "---"-separated, or a JSON v1 List.
void print_documents(const std::vector<json>& docs, Format f, std::ostream& out) {
  if (f == Format::kJson) {
    out << json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", docs}}.dump(2) << "\n";
    return;
  }
  std::string text;
  text.reserve(size_t{1} << 16);  // a recipe's children: 20-40 KiB
  for (const auto& d : docs) {
    text += "---\n";
    api::append_yaml(text, d);
  }
  out << text;
}

// What commands leave to the process exit (CommonOptions::keepUntilExit). Reachable from
// here, so leak checkers count it as kept, not lost.
struct KeptUntilExit {
  std::vector<json> documents;
  std::vector<api::Dgd> graphs;
};
KeptUntilExit& kept_until_exit() {
  static auto* kept = new KeptUntilExit;
  return *kept;
}
void keep_documents(std::vector<json>& docs) {
  auto& kept = kept_until_exit().documents;
  for (auto& d : docs) kept.push_back(std::move(d));
}

bool is_dgd(const json& doc) {
  return doc.is_object() && doc.value("kind", std::string()) == api::kKind;
}

// The documents of the input. A v1 List is unpacked. Reports YAML errors on `err`.
std::optional<std::vector<json>> read_documents(const std::string& text, const std::string& source,
                                               std::ostream& err) {
  std::vector<json> docs;
  try {
    docs = api::yaml_to_json_documents(text);
  } catch (const api::YamlError& e) {
    err << bounded(source) << ": " << bounded(e.what()) << "\n";
    return std::nullopt;
  }
  std::vector<json> out;
  for (auto& d : docs) {
    if (d.is_object() && d.value("kind", std::string()) == "List" && d.contains("items") && d["items"].is_array()) {
      for (auto& item : d["items"]) out.push_back(std::move(item));
    } else {
      out.push_back(std::move(d));
    }
  }
  return out;
}

struct Prepared {
  std::string name;                      // DGD name (or "document N")
  std::vector<api::FieldError> problems; // errors and warnings, deduplicated, in order
  std::optional<api::Dgd> graph;         // the explicit graph when no error
};

// parse, then the checks the operator's SpecValid runs (recipes::expandAndValidate).
Prepared prepare(json&& doc, size_t index) {
  Prepared p;
  p.name = "document " + std::to_string(index + 1);
  auto parsed = api::from_json(std::move(doc));
  if (!parsed.dgd.metadata.name.empty()) p.name = parsed.dgd.metadata.name;
  const bool parsed_ok = parsed.ok();
  p.problems = std::move(parsed.errors);
  if (!parsed_ok) return p;
  // A DGD that names no recipe (e.g. a recipe's own deploy.yaml) needs no catalog: building
  // it would cost such a render more than reading its input.
  static const recipes::Catalog kNoRecipes;
  const recipes::Catalog& catalog = parsed.dgd.spec.recipe ? recipes::Catalog::builtin() : kNoRecipes;
  auto checked = recipes::expand_and_validate(catalog, std::move(parsed.dgd));
  for (auto& e : checked.problems) p.problems.push_back(std::move(e));
  p.graph = std::move(checked.graph);
  return p;
}

// One line per problem; names and messages are bounded (a 10 MB name costs a line).
void report_problems(const Prepared& p, const std::string& source, std::ostream& err) {
  const std::string prefix = bounded(source) + ": " + bounded(p.name, 80) + ": ";
  for (const auto& e : p.problems) {
    err << prefix << (e.severity == api::Severity::kWarning ? "warning: " : "error: ") << bounded(e.str(), 2048)
        << "\n";
  }
}

// An object the API server would store is at most etcd's request limit: say so before
// any work on a larger one.
std::optional<std::string> too_large_to_store(const json& doc) {
  const size_t bytes = doc.dump().size();
  if (bytes <= kMaxObjectBytes) return std::nullopt;
  return "the object is " + std::to_string(bytes) + " bytes as JSON; etcd stores at most " +
         std::to_string(kMaxObjectBytes) + " per object (the API server answers \"etcdserver: request is too large\")";
}

// Runs `each` on the prepared graph of every DGD document; 1 when any document fails.
template <class F>
int for_each_graph(const std::string& text, const std::string& source, std::ostream& err, bool keep_until_exit,
                 F each) {
  auto docs = read_documents(text, source, err);
  if (!docs) return 1;
  int rc = 0;
  size_t count = 0;
  for (size_t i = 0; i < docs->size(); ++i) {
    if (!is_dgd((*docs)[i])) continue;
    ++count;
    if (auto why = too_large_to_store((*docs)[i])) {
      const json& meta = (*docs)[i].value("metadata", json::object());
      const json name = meta.is_object() ? meta.value("name", json()) : json();
      err << bounded(source) << ": " << (name.is_string() ? bounded(name.get<std::string>(), 80) : "document " + std::to_string(i + 1))
          << ": error: " << *why << "\n";
      rc = 1;
      continue;
    }
    Prepared p = prepare(std::move((*docs)[i]), i);
    report_problems(p, source, err);
    if (!p.graph) {
      rc = 1;
      continue;
    }
    if (!each(*p.graph, p)) rc = 1;
    if (keep_until_exit) kept_until_exit().graphs.push_back(std::move(*p.graph));
  }
  if (count == 0) {
    err << bounded(source) << ": no " << api::kKind << " document found\n";
    return 1;
  }
  return rc;
}

int gpu_count(const api::Dgd& dgd) {
  int total = 0;
  for (const auto& c : dgd.spec.components) {
    if (!c.type || !api::is_worker_type(*c.type) || !c.pod_template.is_object()) continue;
    for (const auto& ct : c.pod_template["spec"].value("containers", json::array())) {
      const auto& req = ct.value("resources", json::object()).value("requests", json::object());
      if (req.contains("nvidia.com/gpu")) {
        const auto& g = req["nvidia.com/gpu"];
        total += c.replicas.value_or(1) * (g.is_string() ? std::stoi(g.get<std::string>()) : g.get<int>());
      }
    }
  }
  return total;
}

}  // namespace

int recipes_list(const CommonOptions& o, std::ostream& out, bool table) {
  const auto& all = recipes::Catalog::builtin().all();
  if (table) {
    out << "NAME                                            GPUS  COMPONENTS\n";
    for (const auto& r : all) {
      std::string comps;
      for (const auto& c : r.dgd().spec.components) {
        if (!comps.empty()) comps += " ";
        comps += c.name + "x" + std::to_string(c.replicas.value_or(1));
      }
      std::string name = r.name;
      name.resize(std::max<size_t>(name.size() + 1, 48), ' ');
      std::string gpus = std::to_string(gpu_count(r.dgd()));
      gpus.resize(6, ' ');
      out << name << gpus << comps << "\n";
    }
    return 0;
  }
  json items = json::array();
  for (const auto& r : all) {
    json comps = json::array();
    for (const auto& c : r.dgd().spec.components) {
      comps.push_back({{"name", c.name}, {"type", c.type ? api::to_string(*c.type) : ""}, {"replicas", c.replicas.value_or(1)}});
    }
    items.push_back({{"name", r.name}, {"dgd", r.dgd().metadata.name}, {"model", r.model},
                     {"framework", r.framework}, {"gpus", gpu_count(r.dgd())}, {"components", comps}});
  }
  if (o.format == Format::kJson) {
    out << items.dump(2) << "\n";
  } else {
    out << api::json_to_yaml(items);
  }
  return 0;
}

int recipes_show(const std::string& name, const CommonOptions& o, std::ostream& out, std::ostream& err) {
  const auto& catalog = recipes::Catalog::builtin();
  const recipes::Recipe* r = catalog.find(name);
  if (r == nullptr) {
    err << "dgdctl: " << bounded(catalog.explain_missing(name)) << "\n";
    return 1;
  }
  if (o.format == Format::kJson) {
    out << api::to_json(r->dgd()).dump(2) << "\n";
  } else {
    out << r->source;
  }
  return 0;
}

int expand(const std::string& text, const std::string& source, bool typed, const CommonOptions& o,
           std::ostream& out, std::ostream& err) {
  std::vector<json> docs;
  int rc = for_each_graph(text, source, err, o.keep_until_exit, [&](const api::Dgd& graph, const Prepared&) {
    if (typed) {
      docs.push_back(api::to_json(graph));
      return true;
    }
    auto up = render::to_upstream(graph, render::RenderOptions{o.default_namespace});
    for (const auto& e : up.errors) err << bounded(source) << ": " << bounded(graph.metadata.name, 80) << ": error: " << bounded(e.str(), 2048) << "\n";
    for (auto& d : up.objects) docs.push_back(std::move(d));
    return up.ok();
  });
  if (rc == 0) print_documents(docs, o.format, out);
  if (o.keep_until_exit) keep_documents(docs);
  return rc;
}

int render(const std::string& text, const std::string& source, const CommonOptions& o, std::ostream& out,
           std::ostream& err) {
  std::vector<json> docs;
  int rc = for_each_graph(text, source, err, o.keep_until_exit, [&](const api::Dgd& graph, const Prepared&) {
    auto r = render::render(graph, render::RenderOptions{o.default_namespace});
    for (const auto& e : r.errors) err << bounded(source) << ": " << bounded(graph.metadata.name, 80) << ": error: " << bounded(e.str(), 2048) << "\n";
    for (auto& d : r.objects) docs.push_back(std::move(d));
    return r.ok();
  });
  if (rc == 0) print_documents(docs, o.format, out);
  if (o.keep_until_exit) keep_documents(docs);
  return rc;
}

int validate(const std::string& text, const std::string& source, std::ostream& out, std::ostream& err) {
  return for_each_graph(text, source, err, false, [&](const api::Dgd& graph, const Prepared& p) {
    out << bounded(source) << ": " << api::kKind << " " << bounded(graph.metadata.name, 80) << " is valid";
    if (!p.problems.empty()) out << " (" << p.problems.size() << " warning(s))";
    out << "\n";
    return true;
  });
}

}  // namespace dgd::cli
