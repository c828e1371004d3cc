#include "cli/dgdctl/input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ostream>

#include "cli/bounded_text.h"

namespace dgd::cli {

std::optional<Input> read_input(const std::string& file, std::ostream& err) {
  Input in;
  const bool from_stdin = file == "-";
  in.source = from_stdin ? "<stdin>" : file;
  const int fd = from_stdin ? STDIN_FILENO : ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      err << "dgdctl: the path \"" << bounded(file) << "\" does not exist\n";
    } else {
      err << "dgdctl: cannot read \"" << bounded(file) << "\": " << std::strerror(errno) << "\n";
    }
    return std::nullopt;
  }
  // A regular file in one read of its size into a buffer one byte larger (the second
  // read, into that byte, sees the end); a pipe in chunks. Never more than one byte past
  // the limit: that byte is how an oversized input is told from one exactly at it.
  struct stat st {};
  constexpr size_t kChunk = size_t{1} << 16;
  const bool sized = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
  in.text.reserve(sized ? std::min(static_cast<size_t>(st.st_size), kMaxInputBytes) + 1 : kChunk);
  int read_errno = 0;
  for (;;) {
    const size_t used = in.text.size();
    if (used > kMaxInputBytes) break;
    size_t want = in.text.capacity() > used ? in.text.capacity() - used : kChunk;
    want = std::min(want, kMaxInputBytes + 1 - used);
    in.text.resize(used + want);
    const ssize_t n = ::read(fd, in.text.data() + used, want);
    read_errno = n < 0 ? errno : 0;
    in.text.resize(used + static_cast<size_t>(n > 0 ? n : 0));
    if (n > 0 || (n < 0 && read_errno == EINTR)) continue;
    break;
  }
  if (!from_stdin) ::close(fd);
  if (read_errno != 0) {
    err << "dgdctl: cannot read \"" << bounded(file) << "\": " << std::strerror(read_errno) << "\n";
    return std::nullopt;
  }
  if (in.text.size() > kMaxInputBytes) {
    err << "dgdctl: " << bounded(in.source) << ": Request entity too large: limit is " << kMaxInputBytes
        << " (an API server refuses a request body over 3 MiB; nothing was parsed)\n";
    return std::nullopt;
  }
  return in;
}

}  // namespace dgd::cli
