// Data files compiled into a binary (see cmake/embed.cmake): each file once, with its
// text and, for a YAML file, the JSON it parses to, computed at build time.
#pragma once
#include <string>
#include <vector>

namespace dgd {

// One embedded file: its path relative to the embedded folder and its bytes. `json` is the
// compact JSON of a `.yaml` file (parsing JSON at run time is an order of magnitude cheaper
// than parsing YAML); empty for other files and for files read at run time.
struct EmbeddedFile {
  std::string path;
  std::string content;
  std::string json;
};

}  // namespace dgd
