// Whole lines from several byte streams onto shared outputs, for the output of `ezpz launch`'s local ranks.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ezpz::core {

// The most bytes of one unfinished line held back per source; a longer line is passed on in pieces of this size.
inline constexpr std::size_t k_max_line_chunk = 64 * 1024;

// Passes the bytes of several sources (a rank's stdout, a rank's stderr, the launcher's own messages)
// on to a sink so that one source's line is never cut into by another source's bytes: each source's
// bytes are held back until its '\n' and then passed on together. A '\r' also releases what came
// before it, so a progress bar that redraws its line shows at once. At most `max_chunk` bytes of an
// unfinished line are held per source; beyond that the line is passed on in pieces of `max_chunk`.
//
// Bytes are passed on unchanged: any byte value, NUL and invalid UTF-8 included, no prefix. The one
// addition: when the sink's output of a source ends in the middle of a line (a piece of an over-long
// line, a '\r' update, a last line without '\n') and another source's bytes come next, a "\n" is
// first passed on for the unfinished source, so the other source's text starts on a line of its own.
//
// Sources are any numbers the caller chooses. The sink gets each piece with its source and must write
// it whole before returning. Not thread-safe.
class LineForwarder {
 public:
  using Sink = std::function<void(long source, std::string_view bytes)>;

  explicit LineForwarder(Sink sink, std::size_t max_chunk = k_max_line_chunk);

  // Takes the next bytes of `source`; its finished lines go to the sink now, the rest is held.
  void feed(long source, std::string_view bytes);

  // `source` is done (it exited or closed its end): what it still holds goes to the sink as it is,
  // without adding a '\n'. The source may feed again afterwards.
  void finish(long source);

  // Bytes held back for `source` (always less than max_chunk).
  std::size_t pending(long source) const;

 private:
  void emit(long source, std::string_view bytes);

  Sink m_sink;
  std::size_t m_max_chunk;
  std::map<long, std::string> m_pending;
  std::optional<long> m_unfinished;  // the source whose line the sink's output currently ends inside
};

// Passes what the non-blocking pipe `fd` holds now to `forwarder` as `source`: one read into `buffer`,
// or with `drain` reads up to 1 MiB (a dead process's pipe holds at most a pipe buffer, but something
// it started may keep writing). At the end of the pipe the source's unfinished line goes out and `fd`
// is closed and set to -1. Returns the bytes read.
std::size_t forward_pipe(int& fd, long source, LineForwarder& forwarder, std::vector<char>& buffer, bool drain);

}  // namespace ezpz::core
