// The content stream cursor.
#include "ezpz/yeet/content_stream.hpp"

#include <cassert>

namespace ezpz::core::yeet {

ContentCursor::ContentCursor(const Manifest& manifest) {
  for (std::size_t i = 0; i < manifest.entries.size(); ++i) {
    if (manifest.entries[i].kind != EntryKind::file) continue;
    m_files.push_back(i);
    m_sizes.push_back(manifest.entries[i].size);
  }
}

void ContentCursor::skip_empty_files() {
  while (m_file < m_sizes.size() && m_sizes[m_file] == 0) ++m_file;
  assert(m_file < m_sizes.size() && "read past the end of the content stream");
}

}  // namespace ezpz::core::yeet
