// Data files compiled into a binary (see cmake/embed.cmake).
#pragma once
#include <string>
#include <vector>

namespace dgd {

// One embedded file: its path relative to the embedded folder, and its bytes.
struct EmbeddedFile {
  std::string path;
  std::string content;
};

}  // namespace dgd
