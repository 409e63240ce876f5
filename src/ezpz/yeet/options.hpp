// The options of `ezpz yeet`, defined once: the ezpz front end parses them (for --help and early
// usage errors) and the MPI program it runs (ezpz-yeet-mpi) parses the same definitions again.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ezpz::core::yeet {

enum class VenvMode : std::uint8_t { detect, on, off };

// How each chunk travels from rank 0 to the others (mpi/broadcast.cpp).
enum class Route : std::uint8_t {
  chain,  // along the ranks in order: every link carries the data once, in pieces (the default)
  bcast,  // MPI_Ibcast: the MPI library's algorithm (a binomial tree, or scatter + ring all-gather)
};

struct Options {
  std::string src;
  std::string dest;  // may hold %n, %r, %% and $VAR / ${VAR}
  bool unpack = false;
  VenvMode venv = VenvMode::detect;
  std::string min_success;  // "" (every node), "N" nodes or "P%" of the nodes
  std::uint64_t chunk_bytes = 4u << 20;
  int pipeline_depth = 4;
  Route route = Route::chain;
  bool force = false;  // ignore a cached copy
  bool quiet = false;  // no progress lines (the summary and errors still print)
};

// Adds the options and the SRC DEST positionals to `app`.
void add_options(CLI::App& app, Options& options);

// The arguments that reproduce `options` for add_options (what the front end passes on).
std::vector<std::string> to_arguments(const Options& options);

// How many of `nodes` must succeed: all of them for "", N for "N", ceil(P% of nodes) for "P%".
// Throws UserError for anything else, or for more nodes than there are.
int required_successes(const std::string& min_success, int nodes);

}  // namespace ezpz::core::yeet
