// The translation unit that carries the precompiled nlohmann/json.hpp of the demo's build
// (DGD_PCH in CMakeLists.txt); the targets that reuse it compile against its header.
