// dgdctl's input: a file, or stdin for "-", read only up to what an API server accepts
// as one request body, so an oversized file is refused before any parsing. Stateless.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>

namespace dgd::cli {

// kube-apiserver's --max-request-body-bytes default (MaxRequestBodyBytes, 3 MiB): twice
// etcd's 1.5 MiB request limit, for JSON that is stored more compactly.
inline constexpr size_t kMaxInputBytes = size_t{3} << 20;
// etcd's default --max-request-bytes: an object larger than this is refused by the API
// server with "etcdserver: request is too large".
inline constexpr size_t kMaxObjectBytes = size_t{3} << 19;

struct Input {
  std::string text;
  std::string source;  // the file name, or "<stdin>"
};

// Reads `file` ("-": stdin). On failure writes one line to `err` and returns nullopt:
// a missing path (kubectl's wording), a read error with its reason, or more than
// kMaxInputBytes (read no further).
std::optional<Input> read_input(const std::string& file, std::ostream& err);

}  // namespace dgd::cli
