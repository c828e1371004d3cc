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

// [begin, end) of the arena; next == 0 while it is not in use. begin and end are written
// once, before next is published.
std::atomic<std::uintptr_t> g_next{0};
std::atomic<std::uintptr_t> g_begin{0};
std::atomic<std::uintptr_t> g_end{0};

// The alignment operator new guarantees (__STDCPP_DEFAULT_NEW_ALIGNMENT__).
constexpr std::size_t kAlign = 16;

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
  if (g_next.load(std::memory_order_relaxed) != 0 && n <= dgd::cli::kExitArenaBytes) {
    const std::size_t size = n == 0 ? kAlign : (n + kAlign - 1) & ~(kAlign - 1);
    const std::uintptr_t p = g_next.fetch_add(size, std::memory_order_relaxed);
    // Past the end: the arena is used up and stays so (next only grows); malloc from now on.
    if (p + size <= g_end.load(std::memory_order_relaxed)) return reinterpret_cast<void*>(p);
  }
  return mallocOrThrow(n);
}

void release(void* p) noexcept {
  if (!inArena(p)) std::free(p);
}

}  // namespace

namespace dgd::cli {

void useExitArena() {
  if (g_next.load() != 0) return;
  void* base = mmap(nullptr, kExitArenaBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
  if (base == MAP_FAILED) return;  // stay with malloc
  const auto begin = reinterpret_cast<std::uintptr_t>(base);
  g_begin.store(begin);
  g_end.store(begin + kExitArenaBytes);
  g_next.store(begin);
}

std::size_t exitArenaUsed() {
  const auto next = g_next.load(), begin = g_begin.load(), end = g_end.load();
  if (next == 0) return 0;
  return (next < end ? next : end) - begin;
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
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }

#else  // sanitizers: their allocator, untouched

namespace dgd::cli {
void useExitArena() {}
std::size_t exitArenaUsed() { return 0; }
}  // namespace dgd::cli

#endif
