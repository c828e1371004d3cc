// dgdctl's allocation policy for its one-shot offline commands (render, expand, validate,
// recipes): memory that is never handed back.
//
// A render builds and drops about 10 000 small JSON nodes; with malloc that is a third of
// its instructions (glibc's free lists, then freeing every tree once more at the end).
// A process that prints and exits needs neither: after useExitArena(), the program's
// operator new takes memory from a bump arena (one atomic add) and operator delete of
// arena memory does nothing; the kernel takes it all back at exit. The arena is bounded
// (kExitArenaBytes of reserved address space, pages touched only when used): once it is
// used up, operator new is malloc again, so a command that runs longer than expected
// degrades to the ordinary allocator instead of growing without end.
//
// CLI only: the libraries and the operator never call this. Built out under AddressSanitizer
// and ThreadSanitizer (their allocators must see every allocation and free); then
// useExitArena() does nothing.
#pragma once

#include <cstddef>

namespace dgd::cli {

inline constexpr std::size_t kExitArenaBytes = std::size_t{256} << 20;

// Switches operator new to the arena for the rest of the process. Thread-safe
// allocation; call it once, before the command's work starts.
void useExitArena();

// Bytes handed out by the arena so far (0 when it is not in use).
std::size_t exitArenaUsed();

}  // namespace dgd::cli
