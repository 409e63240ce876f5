// The real process runner behind the public interface.
#include "ezpz/process.hpp"

#include "ezpz/submit/process.hpp"

namespace ezpz {

std::unique_ptr<ProcessRunner> make_process_runner(std::chrono::milliseconds timeout) {
  return std::make_unique<core::SystemProcessRunner>(timeout);
}

}  // namespace ezpz
