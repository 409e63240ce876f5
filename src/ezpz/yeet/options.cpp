// The options of `ezpz yeet` (front end and ezpz-yeet-mpi share this file).
#include "ezpz/yeet/options.hpp"

#include <cmath>
#include <utility>

#include "ezpz/util/error.hpp"

namespace ezpz::core::yeet {
namespace {

// Constant tables (no start-up cost in the ezpz binary, which links this file for every command).
constexpr std::pair<VenvMode, const char*> k_venv_flags[] = {{VenvMode::on, "--venv"}, {VenvMode::off, "--no-venv"}};
constexpr std::pair<char, std::uint64_t> k_size_units[] = {{'K', 1u << 10}, {'M', 1u << 20}, {'G', 1u << 30}};
constexpr std::uint64_t k_min_chunk = 4u << 10;
constexpr std::uint64_t k_max_chunk = 1u << 30;

const char* venv_flag(VenvMode mode) {
  for (const auto& [entry, flag] : k_venv_flags) {
    if (entry == mode) return flag;
  }
  return nullptr;
}

std::uint64_t unit_bytes(char unit) {
  for (const auto& [name, bytes] : k_size_units) {
    if (name == unit) return bytes;
  }
  return 0;
}

std::uint64_t parse_size(const std::string& text) {
  std::uint64_t value = std::stoull(text);
  std::uint64_t unit = unit_bytes(text.back());
  return unit == 0 ? value : value * unit;
}

// "4M", "512K", "1G" or plain bytes.
std::string check_size(const std::string& text) {
  if (text.empty()) return "expected a size such as 4M";
  std::size_t digits = text.find_first_not_of("0123456789");
  if (digits == 0 || text.size() > 12) return "expected a size such as 4M, got '" + text + "'";
  if (digits != std::string::npos && (digits + 1 != text.size() || unit_bytes(text.back()) == 0)) {
    return "expected a size such as 4M (units K, M, G), got '" + text + "'";
  }
  std::uint64_t bytes = parse_size(text);
  if (bytes < k_min_chunk || bytes > k_max_chunk) return "chunk size must be between 4K and 1G, got '" + text + "'";
  return {};
}

std::string check_min_success(const std::string& text) {
  try {
    required_successes(text, 1000000);
  } catch (const UserError& error) {
    return error.what();
  }
  return {};
}

constexpr std::pair<const char*, Route> k_routes[] = {{"chain", Route::chain}, {"bcast", Route::bcast}};

}  // namespace

void add_options(CLI::App& app, Options& options) {
  app.add_option("SRC", options.src, "directory, file or tarball to copy (read by rank 0 only)")->required();
  app.add_option("DEST", options.dest,
                 "directory on node-local storage; %n is the node name, %r this process's rank, %% a '%';\n"
                 "$VAR and ${VAR} are expanded (e.g. /mnt/bb/$USER/env)")
      ->required();
  app.add_flag("--unpack", options.unpack, "unpack a tarball (.tar, .tar.gz, .tar.zst, .tar.xz, .tar.bz2) into DEST");
  app.add_flag_callback(
      venv_flag(VenvMode::on), [&options] { options.venv = VenvMode::on; },
      "relocate a Python virtual environment to DEST (default: when it has pyvenv.cfg)");
  app.add_flag_callback(
      venv_flag(VenvMode::off), [&options] { options.venv = VenvMode::off; }, "never relocate");
  app.add_option("--min-success", options.min_success,
                 "nodes that must succeed for exit 0: a count (3) or a share (90%); default: all")
      ->check(CLI::Validator(check_min_success, "N|P%"));
  app.add_option_function<std::string>(
         "--chunk-size", [&options](const std::string& text) { options.chunk_bytes = parse_size(text); },
         "bytes per broadcast message (default 4M)")
      ->check(CLI::Validator(check_size, "SIZE"));
  app.add_option("--pipeline", options.pipeline_depth, "chunks in flight at once (default 4)")
      ->check(CLI::Range(1, 64));
  app.add_option("--route", options.route,
                 "how chunks travel: chain (each node receives each chunk once from the node before it and\n"
                 "passes it on in pieces as they arrive; the default) or bcast (MPI_Ibcast)")
      ->transform(CLI::CheckedTransformer(
          std::vector<std::pair<std::string, Route>>(std::begin(k_routes), std::end(k_routes)), CLI::ignore_case));
  app.add_flag("--force", options.force, "copy even where DEST already holds the same content");
  app.add_flag("--quiet", options.quiet, "no progress lines; the summary and errors still print");
}

std::vector<std::string> to_arguments(const Options& options) {
  std::vector<std::string> words;
  if (options.unpack) words.push_back("--unpack");
  if (const char* flag = venv_flag(options.venv)) words.push_back(flag);
  if (!options.min_success.empty()) words.insert(words.end(), {"--min-success", options.min_success});
  words.insert(words.end(), {"--chunk-size", std::to_string(options.chunk_bytes)});
  words.insert(words.end(), {"--pipeline", std::to_string(options.pipeline_depth)});
  for (const auto& [word, route] : k_routes)
    if (route == options.route) words.insert(words.end(), {"--route", word});
  if (options.force) words.push_back("--force");
  if (options.quiet) words.push_back("--quiet");
  words.insert(words.end(), {"--", options.src, options.dest});
  return words;
}

int required_successes(const std::string& min_success, int nodes) {
  if (min_success.empty()) return nodes;
  bool share = min_success.back() == '%';
  std::string number = share ? min_success.substr(0, min_success.size() - 1) : min_success;
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos || number.size() > 9) {
    throw UserError("--min-success expects a node count (3) or a share (90%), got '" + min_success + "'");
  }
  long value = std::stol(number);
  if (share) {
    if (value > 100) throw UserError("--min-success share '" + min_success + "' is over 100%");
    return static_cast<int>(std::ceil(static_cast<double>(value) * nodes / 100.0));
  }
  if (value > nodes) {
    throw UserError("--min-success " + min_success + " asks for more nodes than the " + std::to_string(nodes) +
                    " taking part");
  }
  return static_cast<int>(value);
}

}  // namespace ezpz::core::yeet
