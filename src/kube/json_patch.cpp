#include "dgd/kube/json_patch.h"

#include <string>
#include <vector>

namespace dgd::kube {

using nlohmann::json;

namespace {

// A pointer split into unescaped reference tokens.
std::vector<std::string> parse_pointer(std::string_view pointer, int op_index) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer[0] != '/') {
    throw PatchError(PatchError::Code::kInvalid, std::string(pointer),
                     "JSON pointer \"" + std::string(pointer) + "\" must start with '/'", op_index);
  }
  std::string token;
  for (size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(std::move(token));
      token.clear();
      continue;
    }
    char c = pointer[i];
    if (c == '~') {
      char next = i + 1 < pointer.size() ? pointer[i + 1] : '\0';
      if (next == '0') {
        token += '~';
      } else if (next == '1') {
        token += '/';
      } else {
        throw PatchError(PatchError::Code::kInvalid, std::string(pointer),
                         "JSON pointer \"" + std::string(pointer) + "\" has an invalid '~' escape",
                         op_index);
      }
      ++i;
      continue;
    }
    token += c;
  }
  return tokens;
}

// Array index token: decimal without leading zeros. -1 when not an index.
long long parse_index(const std::string& token) {
  if (token.empty() || token.size() > 18) return -1;
  if (token.size() > 1 && token[0] == '0') return -1;
  long long v = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

class Applier {
 public:
  Applier(json& doc, int op_index, std::string op) : doc_(doc), op_index_(op_index), op_(std::move(op)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw PatchError(PatchError::Code::kInvalid, path,
                     op_ + " operation does not apply: " + what + " (operation " +
                         std::to_string(op_index_) + ", path \"" + path + "\")",
                     op_index_);
  }

  // The container holding the last token of `tokens`, or failure.
  json& parent_of(const std::vector<std::string>& tokens, const std::string& path) {
    json* cur = &doc_;
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      const std::string& t = tokens[i];
      if (cur->is_object()) {
        auto it = cur->find(t);
        if (it == cur->end()) fail(path, "doc is missing path: missing value");
        cur = &*it;
      } else if (cur->is_array()) {
        long long idx = parse_index(t);
        if (idx < 0 || idx >= static_cast<long long>(cur->size())) fail(path, "doc is missing path: index out of range");
        cur = &(*cur)[static_cast<size_t>(idx)];
      } else {
        fail(path, "doc is missing path: not a container");
      }
    }
    return *cur;
  }

  json& get(const std::vector<std::string>& tokens, const std::string& path) {
    if (tokens.empty()) return doc_;
    json& parent = parent_of(tokens, path);
    const std::string& last = tokens.back();
    if (parent.is_object()) {
      auto it = parent.find(last);
      if (it == parent.end()) fail(path, "doc is missing key: missing value");
      return *it;
    }
    if (parent.is_array()) {
      long long idx = parse_index(last);
      if (idx < 0 || idx >= static_cast<long long>(parent.size())) fail(path, "index out of range");
      return parent[static_cast<size_t>(idx)];
    }
    fail(path, "doc is missing path: not a container");
  }

  void add(const std::vector<std::string>& tokens, const std::string& path, json value) {
    if (tokens.empty()) {
      doc_ = std::move(value);
      return;
    }
    json& parent = parent_of(tokens, path);
    const std::string& last = tokens.back();
    if (parent.is_object()) {
      parent[last] = std::move(value);
    } else if (parent.is_array()) {
      long long idx = last == "-" ? static_cast<long long>(parent.size()) : parse_index(last);
      if (idx < 0 || idx > static_cast<long long>(parent.size())) fail(path, "index out of range");
      parent.insert(parent.begin() + idx, std::move(value));
    } else {
      fail(path, "doc is missing path: not a container");
    }
  }

  json remove(const std::vector<std::string>& tokens, const std::string& path) {
    if (tokens.empty()) fail(path, "cannot remove the whole document");
    json& parent = parent_of(tokens, path);
    const std::string& last = tokens.back();
    if (parent.is_object()) {
      auto it = parent.find(last);
      if (it == parent.end()) fail(path, "unable to remove nonexistent key: " + last + ": missing value");
      json out = std::move(*it);
      parent.erase(it);
      return out;
    }
    if (parent.is_array()) {
      long long idx = parse_index(last);
      if (idx < 0 || idx >= static_cast<long long>(parent.size())) fail(path, "index out of range");
      json out = std::move(parent[static_cast<size_t>(idx)]);
      parent.erase(static_cast<size_t>(idx));
      return out;
    }
    fail(path, "doc is missing path: not a container");
  }

 private:
  json& doc_;
  int op_index_;
  std::string op_;
};

const json& member(const json& op, const char* name, int index, const std::string& op_name) {
  auto it = op.find(name);
  if (it == op.end()) {
    throw PatchError(PatchError::Code::kInvalid, "",
                     op_name + " operation (operation " + std::to_string(index) + ") is missing \"" + name + "\"",
                     index);
  }
  return *it;
}

std::string string_member(const json& op, const char* name, int index, const std::string& op_name) {
  const json& v = member(op, name, index, op_name);
  if (!v.is_string()) {
    throw PatchError(PatchError::Code::kInvalid, "",
                     op_name + " operation (operation " + std::to_string(index) + "): \"" + name + "\" must be a string",
                     index);
  }
  return v.get<std::string>();
}

}  // namespace

const json* resolve_json_pointer(const json& document, std::string_view pointer) {
  const json* cur = &document;
  for (const std::string& t : parse_pointer(pointer, -1)) {
    if (cur->is_object()) {
      auto it = cur->find(t);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    } else if (cur->is_array()) {
      long long idx = parse_index(t);
      if (idx < 0 || idx >= static_cast<long long>(cur->size())) return nullptr;
      cur = &(*cur)[static_cast<size_t>(idx)];
    } else {
      return nullptr;
    }
  }
  return cur;
}

json apply_json_patch(const json& document, const json& patch) {
  if (!patch.is_array()) {
    throw PatchError(PatchError::Code::kMalformed, "", "json patch must be an array of operations");
  }
  if (patch.size() > kMaxJsonPatchOperations) {
    throw PatchError(PatchError::Code::kTooLarge, "",
                     "The allowed maximum operations in a JSON patch is " + std::to_string(kMaxJsonPatchOperations) +
                         ", got " + std::to_string(patch.size()));
  }
  for (size_t i = 0; i < patch.size(); ++i) {
    if (!patch[i].is_object()) {
      throw PatchError(PatchError::Code::kMalformed, "",
                       "json patch operation " + std::to_string(i) + " is not an object", static_cast<int>(i));
    }
  }
  json doc = document;
  int index = 0;
  for (const json& op : patch) {
    std::string name = string_member(op, "op", index, "json patch");
    std::string path = string_member(op, "path", index, name);
    std::vector<std::string> tokens = parse_pointer(path, index);
    Applier a(doc, index, name);
    if (name == "add") {
      a.add(tokens, path, member(op, "value", index, name));
    } else if (name == "remove") {
      a.remove(tokens, path);
    } else if (name == "replace") {
      const json& value = member(op, "value", index, name);
      a.get(tokens, path) = value;
    } else if (name == "move") {
      std::string from = string_member(op, "from", index, name);
      std::vector<std::string> from_tokens = parse_pointer(from, index);
      if (from_tokens.size() < tokens.size() &&
          std::equal(from_tokens.begin(), from_tokens.end(), tokens.begin())) {
        a.fail(path, "cannot move \"" + from + "\" into its own child");
      }
      if (from == path) {
        a.get(tokens, path);  // must exist; otherwise a no-op
      } else {
        json value = a.remove(from_tokens, from);
        a.add(tokens, path, std::move(value));
      }
    } else if (name == "copy") {
      std::string from = string_member(op, "from", index, name);
      json value = a.get(parse_pointer(from, index), from);
      a.add(tokens, path, std::move(value));
    } else if (name == "test") {
      const json& expected = member(op, "value", index, name);
      const json* actual = resolve_json_pointer(doc, path);
      if (actual == nullptr ? !expected.is_null() : *actual != expected) {
        throw PatchError(PatchError::Code::kTestFailed, path,
                         "testing value " + path + " failed: test failed (operation " +
                             std::to_string(index) + ")",
                         index);
      }
    } else {
      throw PatchError(PatchError::Code::kInvalid, path,
                       "unexpected json patch operation \"" + name + "\" (operation " + std::to_string(index) + ")",
                       index);
    }
    ++index;
  }
  return doc;
}

}  // namespace dgd::kube
