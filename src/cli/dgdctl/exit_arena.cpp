// The replaceable global operator new / delete of the dgdctl binary (exit_arena.h).
#include "cli/dgdctl/exit_arena.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DGD_EXIT_ARENA 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define DGD_EXIT_ARENA 0
#endif
#endif
#ifndef DGD_EXIT_ARENA
#define DGD_EXIT_ARENA 1
#endif

#if DGD_EXIT_ARENA

namespace {

using dgd::cli::kExitArenaBytes;
using dgd::cli::kExitArenaSmallBlock;

// The alignment operator new guarantees (__STDCPP_DEFAULT_NEW_ALIGNMENT__), and the
// step between size classes.
constexpr std::size_t kAlign = 16;
constexpr std::size_t kClasses = kExitArenaSmallBlock / kAlign + 1;

// [begin, end) of the region, written once by useExitArena(); read by every thread's
// operator delete to tell region blocks from malloc's.
std::atomic<std::uintptr_t> g_begin{0};
std::atomic<std::uintptr_t> g_end{0};

// Owned by the arena's thread only (no synchronisation needed).
thread_local bool tArenaThread = false;
std::uintptr_t g_next = 0;       // bump pointer
void* g_free[kClasses] = {};     // per size class: singly linked list through the blocks

std::size_t sizeClass(std::size_t n) { return n == 0 ? 1 : (n + kAlign - 1) / kAlign; }

bool inArena(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const auto begin = g_begin.load(std::memory_order_relaxed);
  return a - begin < g_end.load(std::memory_order_relaxed) - begin;
}

void* mallocOrThrow(std::size_t n) {
  if (n == 0) n = 1;
  for (;;) {
    if (void* p = std::malloc(n)) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

void* allocate(std::size_t n) {
  if (tArenaThread && n <= kExitArenaBytes) {
    std::size_t size;
    if (n <= kExitArenaSmallBlock) {
      const std::size_t c = sizeClass(n);
      if (void* p = g_free[c]) {
        g_free[c] = *static_cast<void**>(p);
        return p;
      }
      size = c * kAlign;
    } else {
      size = (n + kAlign - 1) & ~(kAlign - 1);
    }
    if (size <= g_end.load(std::memory_order_relaxed) - g_next) {
      void* p = reinterpret_cast<void*>(g_next);
      g_next += size;
      return p;
    }
    // The region is used up: malloc from here on.
  }
  return mallocOrThrow(n);
}

// `n`: the size given to operator new, when the caller says it (sized delete).
void release(void* p, std::size_t n) noexcept {
  if (!inArena(p)) {
    std::free(p);
    return;
  }
  if (tArenaThread && n != 0 && n <= kExitArenaSmallBlock) {
    const std::size_t c = sizeClass(n);
    *static_cast<void**>(p) = g_free[c];
    g_free[c] = p;
  }
  // Otherwise (a large block, a size not given, another thread) the block stays unused.
}

}  // namespace

namespace dgd::cli {

void useExitArena() {
  if (g_begin.load() != 0) return;
  void* base = mmap(nullptr, kExitArenaBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
  if (base == MAP_FAILED) return;  // stay with malloc
  const auto begin = reinterpret_cast<std::uintptr_t>(base);
  g_next = begin;
  g_end.store(begin + kExitArenaBytes);
  g_begin.store(begin);
  tArenaThread = true;
}

std::size_t exitArenaUsed() {
  const auto begin = g_begin.load();
  return begin == 0 ? 0 : g_next - begin;
}

}  // namespace dgd::cli

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { release(p, 0); }
void operator delete[](void* p) noexcept { release(p, 0); }
void operator delete(void* p, std::size_t n) noexcept { release(p, n); }
void operator delete[](void* p, std::size_t n) noexcept { release(p, n); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p, 0); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p, 0); }

#else  // sanitizers: their allocator, untouched

namespace dgd::cli {
void useExitArena() {}
std::size_t exitArenaUsed() { return 0; }
}  // namespace dgd::cli

#endif
