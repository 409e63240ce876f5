#include "ezpz/torch/env.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>

#include "ezpz/util/devices.hpp"
#include "ezpz/util/node_name.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::torch {
namespace {

std::string join_problems(const std::vector<std::string>& problems, const std::string& hint) {
  std::string text = "ezpz torch: the distributed environment is not usable:";
  for (const auto& problem : problems) text += "\n  " + problem;
  if (!hint.empty()) text += "\n  hint: " + hint;
  return text;
}

std::optional<std::string> get(const EnvLookup& lookup, const char* name) {
  auto value = lookup(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

// Parses a whole decimal integer; nullopt for anything else ("", "1x", " 1", "0x10", overflow).
std::optional<long long> parse_integer(const std::string& text) {
  long long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

class Reader {
 public:
  explicit Reader(const EnvLookup& lookup) : m_lookup(lookup) {}

  // A required integer in [min, max]; `expected` describes the range in words.
  std::optional<long long> integer(const char* name, long long min, long long max, const std::string& expected,
                                   bool required = true) {
    auto value = get(m_lookup, name);
    if (!value) {
      if (required) problem(std::string(name) + " is not set; expected " + expected);
      return std::nullopt;
    }
    auto number = parse_integer(*value);
    if (!number) {
      problem(std::string(name) + "='" + *value + "' is not a whole number; expected " + expected);
      return std::nullopt;
    }
    if (*number < min || *number > max) {
      problem(std::string(name) + "='" + *value + "' is out of range; expected " + expected);
      return std::nullopt;
    }
    return number;
  }

  std::optional<std::string> text(const char* name) { return get(m_lookup, name); }
  void problem(std::string text) { m_problems.push_back(std::move(text)); }
  const std::vector<std::string>& problems() const { return m_problems; }

 private:
  const EnvLookup& m_lookup;
  std::vector<std::string> m_problems;
};

}  // namespace

EnvironmentError::EnvironmentError(std::vector<std::string> problems, const std::string& hint)
    : std::runtime_error(join_problems(problems, hint)), m_problems(std::move(problems)) {}

std::string EnvironmentError::launch_hint() {
  return "start the ranks with `ezpz launch -n N -- PROGRAM` (or under `ezpz exec` or torchrun), which set RANK, "
         "WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT";
}

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

Environment read_environment(const EnvLookup& lookup) {
  Reader reader(lookup);
  Environment env;

  const auto rank = reader.integer("RANK", 0, INT_MAX, "this rank's number, a whole number >= 0");
  const auto world_size = reader.integer("WORLD_SIZE", 1, INT_MAX, "the number of ranks, a whole number >= 1");
  const auto local_rank =
      reader.integer("LOCAL_RANK", 0, INT_MAX, "this rank's number on its node, a whole number >= 0");
  const auto local_world_size =
      reader.integer("LOCAL_WORLD_SIZE", 1, INT_MAX, "the number of ranks on this node, a whole number >= 1");
  const auto node_rank =
      reader.integer("NODE_RANK", 0, INT_MAX, "the index of this node, a whole number >= 0", /*required=*/false);

  // Numbers that are fine on their own but do not fit together.
  const auto show = [](const char* name, long long value) { return std::string(name) + "=" + std::to_string(value); };
  if (rank && world_size && *rank >= *world_size) {
    reader.problem(show("RANK", *rank) +
                   " is out of range; expected 0 ... WORLD_SIZE-1 = " + std::to_string(*world_size - 1));
  }
  if (local_world_size && world_size && *local_world_size > *world_size) {
    reader.problem(show("LOCAL_WORLD_SIZE", *local_world_size) + " is larger than " + show("WORLD_SIZE", *world_size) +
                   "; expected at most WORLD_SIZE ranks on one node");
  }
  if (local_rank && local_world_size && *local_rank >= *local_world_size) {
    reader.problem(show("LOCAL_RANK", *local_rank) +
                   " is out of range; expected 0 ... LOCAL_WORLD_SIZE-1 = " + std::to_string(*local_world_size - 1));
  }
  if (local_rank && rank && *local_rank > *rank) {
    reader.problem(show("LOCAL_RANK", *local_rank) + " is larger than " + show("RANK", *rank) +
                   "; expected LOCAL_RANK <= RANK");
  }

  const auto master_addr = reader.text("MASTER_ADDR");
  if (!master_addr) {
    reader.problem("MASTER_ADDR is not set; expected the host name or address where rank 0 runs (e.g. 127.0.0.1)");
  } else if (std::any_of(master_addr->begin(), master_addr->end(),
                         [](unsigned char c) { return c <= ' ' || c == '/' || c == 127; })) {
    reader.problem("MASTER_ADDR='" + *master_addr +
                   "' is not a host name or address; expected e.g. 'x1000c0s0b0n0' or '10.1.2.3'");
  }
  const auto master_port = reader.integer("MASTER_PORT", 1, 65535, "a TCP port, 1 ... 65535");

  env.device = reader.text("TORCH_DEVICE").value_or("cpu");
  if (auto backend = reader.text("TORCH_BACKEND")) {
    const auto& known = core::backend_names();
    if (std::find(known.begin(), known.end(), *backend) == known.end()) {
      reader.problem("TORCH_BACKEND='" + *backend + "' is not a backend ezpz knows; expected " +
                     core::quoted_list(known));
    }
    env.backend = *backend;
  } else {
    env.backend = core::default_backend(env.device);
    env.backend_defaulted = true;
  }

  // torchrun: its agent hosts the store (PyTorch checks for exactly "True").
  env.agent_store = reader.text("TORCHELASTIC_USE_AGENT_STORE").value_or("") == "True";
  const auto restart_count = reader.integer("TORCHELASTIC_RESTART_COUNT", 0, INT_MAX,
                                            "torchrun's restart count, a whole number >= 0", /*required=*/false);

  if (!reader.problems().empty()) throw EnvironmentError(reader.problems());

  env.world_size = static_cast<int>(*world_size);
  env.local_world_size = static_cast<int>(*local_world_size);
  env.rank = static_cast<int>(*rank);
  env.local_rank = static_cast<int>(*local_rank);
  if (node_rank) env.node_rank = static_cast<int>(*node_rank);
  env.master_addr = *master_addr;
  env.master_port = static_cast<std::uint16_t>(*master_port);
  env.restart_count = static_cast<int>(restart_count.value_or(0));
  env.node_name = core::node_name(lookup);
  return env;
}

}  // namespace ezpz::torch
