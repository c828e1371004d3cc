// kube-proto-descriptors KUBECTL OUT: Kubernetes' own protobuf schemas, taken from a kubectl binary.
//
// The built-in types' `generated.pb.go` files (k8s.io/api, k8s.io/apimachinery), linked into
// kubectl, each register their gzipped FileDescriptorProto with the protobuf runtime. This tool
// finds every gzip stream in the binary, inflates it, and keeps those that parse as a
// google.protobuf.FileDescriptorProto whose package starts with "k8s.io.". It writes them, sorted
// by file name, as a serialized google.protobuf.FileDescriptorSet to OUT, and prints how many
// files it found. A binary without them gives an empty OUT (kube-sim then refuses protobuf
// bodies) and a warning; exit status 1 only when a file cannot be read or written.
#include <google/protobuf/descriptor.pb.h>
#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <string>

namespace {

constexpr size_t max_inflated = 16u << 20;  // far above the largest descriptor (core/v1, ~75 kB)

// The gzip member starting at `data[begin]`, inflated; nullopt when it is not a complete one.
std::optional<std::string> inflate_gzip_at(const std::string& data, size_t begin) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return std::nullopt;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + begin));
  zs.avail_in = static_cast<uInt>(std::min<size_t>(data.size() - begin, max_inflated));
  std::string out;
  char chunk[65536];
  int rc = Z_OK;
  while (rc == Z_OK && out.size() < max_inflated) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof chunk;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - zs.avail_out);
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return std::nullopt;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: kube-proto-descriptors KUBECTL OUT\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "kube-proto-descriptors: cannot read " << argv[1] << "\n";
    return 1;
  }
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  std::map<std::string, google::protobuf::FileDescriptorProto> files;
  const std::string gzip_magic("\x1f\x8b\x08", 3);
  for (size_t at = data.find(gzip_magic); at != std::string::npos; at = data.find(gzip_magic, at + 1)) {
    auto inflated = inflate_gzip_at(data, at);
    if (!inflated) continue;
    google::protobuf::FileDescriptorProto file;
    if (!file.ParseFromString(*inflated)) continue;
    if (file.package().rfind("k8s.io.", 0) != 0 || file.name().size() < 6 ||
        file.name().compare(file.name().size() - 6, 6, ".proto") != 0)
      continue;
    files.emplace(file.name(), std::move(file));
  }
  if (files.empty()) std::cerr << "kube-proto-descriptors: warning: no Kubernetes descriptor in " << argv[1] << "\n";
  google::protobuf::FileDescriptorSet set;
  for (auto& [name, file] : files) *set.add_file() = std::move(file);
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  if (!out || !set.SerializeToOstream(&out)) {
    std::cerr << "kube-proto-descriptors: cannot write " << argv[2] << "\n";
    return 1;
  }
  std::cout << "kube-proto-descriptors: " << files.size() << " Kubernetes descriptor files from " << argv[1] << "\n";
  return 0;
}
