// dgdctl's allocator for its one-shot offline commands (render, expand, validate,
// recipes): small blocks recycled without locks, nothing handed back to the system.
//
// A render builds and drops about 10 000 small JSON nodes; with glibc's malloc that was a
// third of its instructions. After useExitArena(), operator new on the calling thread
// takes memory from one bump region, and a freed block of up to kExitArenaSmallBlock
// bytes goes on a free list per 16-byte size class, from which the next allocation of
// that class is served (a pointer pop: memory touched stays about what is live, which
// matters as much as instructions: a fresh page costs a process about 2 µs). Blocks are
// never returned to the system; the kernel takes the region back at exit.
//
// Confined to the thread that called useExitArena(): other threads keep malloc, and a
// block of the region freed on another thread is simply not reused. Bounded: the region
// is kExitArenaBytes of reserved address space (pages touched only when used); once it is
// used up, operator new is malloc again.
//
// CLI only: the libraries and the operator never call this. Built out under AddressSanitizer
// and ThreadSanitizer (their allocators must see every allocation and free); then
// useExitArena() does nothing.
#pragma once

#include <cstddef>

namespace dgd::cli {

inline constexpr std::size_t kExitArenaBytes = std::size_t{256} << 20;
inline constexpr std::size_t kExitArenaSmallBlock = 1024;

// Switches operator new on the calling thread to the arena for the rest of the process.
// Call it once, before the command's work starts.
void useExitArena();

// Bytes of the region handed out so far (0 when it is not in use).
std::size_t exitArenaUsed();

}  // namespace dgd::cli
