// The real process runner behind the public interface.
#include "ezpz/process.hpp"

#include "ezpz/api/impl.hpp"
#include "ezpz/submit/process.hpp"

namespace ezpz {

std::unique_ptr<ProcessRunner> make_process_runner(std::optional<std::chrono::milliseconds> timeout) {
  if (timeout) return std::make_unique<core::SystemProcessRunner>(*timeout);
  return detail::guarded([] { return std::make_unique<core::SystemProcessRunner>(); });
}

}  // namespace ezpz
