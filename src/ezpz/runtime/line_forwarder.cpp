// Whole lines from several byte streams onto shared outputs (see line_forwarder.hpp).
#include "ezpz/runtime/line_forwarder.hpp"

#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <utility>

namespace ezpz::core {

LineForwarder::LineForwarder(Sink sink, std::size_t max_chunk) : m_sink(std::move(sink)), m_max_chunk(max_chunk) {
  assert(m_max_chunk > 0);
}

void LineForwarder::feed(long source, std::string_view bytes) {
  std::string& pending = m_pending[source];
  std::size_t end = bytes.find_last_of("\n\r");
  if (end != std::string_view::npos) {
    std::string_view released = bytes.substr(0, end + 1);
    if (pending.empty()) {
      emit(source, released);  // the usual case: no copy
    } else {
      pending.append(released);
      emit(source, pending);
      pending.clear();
    }
    bytes.remove_prefix(end + 1);
  }
  while (pending.size() + bytes.size() >= m_max_chunk) {
    std::size_t take = m_max_chunk - pending.size();
    pending.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
    emit(source, pending);
    pending.clear();
  }
  pending.append(bytes);
}

void LineForwarder::finish(long source) {
  auto found = m_pending.find(source);
  if (found == m_pending.end()) return;
  std::string rest = std::move(found->second);
  m_pending.erase(found);
  emit(source, rest);
}

std::size_t LineForwarder::pending(long source) const {
  auto found = m_pending.find(source);
  return found == m_pending.end() ? 0 : found->second.size();
}

void LineForwarder::emit(long source, std::string_view bytes) {
  if (bytes.empty()) return;
  if (m_unfinished && *m_unfinished != source) m_sink(*m_unfinished, "\n");
  m_sink(source, bytes);
  if (bytes.back() == '\n') {
    m_unfinished.reset();
  } else {
    m_unfinished = source;
  }
}

std::size_t forward_pipe(int& fd, long source, LineForwarder& forwarder, std::vector<char>& buffer, bool drain) {
  constexpr std::size_t k_drain_limit = 1 << 20;
  std::size_t total = 0;
  while (fd >= 0 && total < k_drain_limit) {
    ssize_t count = read(fd, buffer.data(), buffer.size());
    if (count > 0) {
      forwarder.feed(source, std::string_view(buffer.data(), static_cast<std::size_t>(count)));
      total += static_cast<std::size_t>(count);
      if (!drain) return total;
    } else if (count < 0 && errno == EINTR) {
      continue;
    } else if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return total;
    } else {  // end of the pipe, or an error that ends it
      forwarder.finish(source);
      close(fd);
      fd = -1;
    }
  }
  return total;
}

}  // namespace ezpz::core
