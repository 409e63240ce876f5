// The phases of a yeet run: manifest, per-node decision, streamed content, commit, reports.
#include "ezpz/yeet/mpi/run.hpp"

#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "ezpz/runtime/rank.hpp"
#include "ezpz/util/env_lookup.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/hash.hpp"
#include "ezpz/yeet/cache_record.hpp"
#include "ezpz/yeet/dest_pattern.hpp"
#include "ezpz/yeet/manifest.hpp"
#include "ezpz/yeet/mpi/broadcast.hpp"
#include "ezpz/yeet/mpi/poll.hpp"
#include "ezpz/yeet/pending_copy.hpp"
#include "ezpz/yeet/progress.hpp"
#include "ezpz/yeet/report.hpp"
#include "ezpz/yeet/source_reader.hpp"
#include "ezpz/yeet/wire.hpp"

namespace ezpz::core::yeet {
namespace {

// Test-only fault switch: EZPZ_YEET_TEST_FAULT=corrupt:RANK:CHUNK flips a byte of chunk CHUNK after it
// reaches rank RANK, as a damaged transfer would (tests/yeet).
struct Fault {
  int rank = -1;
  std::uint64_t chunk = 0;
};

Fault fault_from(const EnvLookup& env) {
  Fault fault;
  auto value = env("EZPZ_YEET_TEST_FAULT");
  if (!value) return fault;
  unsigned long long chunk = 0;
  int rank = -1;
  if (std::sscanf(value->c_str(), "corrupt:%d:%llu", &rank, &chunk) == 2) fault = {rank, chunk};
  return fault;
}

// Broadcasts a byte string from rank 0 of `comm`.
// Blocking collectives are their non-blocking forms plus wait_politely (mpi/poll.hpp): ranks wait here
// while rank 0 scans the source and while the slowest node commits, and MPICH's own waits would spin.
std::string broadcast_bytes(MPI_Comm comm, std::string bytes, bool share_cores) {
  std::uint64_t size = bytes.size();
  MPI_Request request;
  MPI_Ibcast(&size, 1, MPI_UINT64_T, 0, comm, &request);
  wait_politely(request, share_cores);
  bytes.resize(size);
  MPI_Ibcast(bytes.data(), static_cast<int>(size), MPI_BYTE, 0, comm, &request);
  wait_politely(request, share_cores);
  return bytes;
}

// Every rank's report, at rank 0 (empty elsewhere).
std::vector<NodeReport> gather_reports(const NodeReport& mine, int ranks, bool share_cores) {
  std::string encoded = encode_report(mine);
  int size = static_cast<int>(encoded.size());
  std::vector<int> sizes(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  MPI_Request request;
  MPI_Igather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
  wait_politely(request, share_cores);
  int total = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    offsets[i] = total;
    total += sizes[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Igatherv(encoded.data(), size, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, 0, MPI_COMM_WORLD,
               &request);
  wait_politely(request, share_cores);
  std::vector<NodeReport> reports;
  if (mine.rank != 0) return reports;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    reports.push_back(decode_report(
        std::string_view(all).substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(sizes[i]))));
  }
  return reports;
}

// True when a lower rank has the same node and DEST: that rank writes it, this one must not race it.
bool shares_dest_with_lower_rank(const NodeReport& mine, int ranks, bool share_cores) {
  std::uint64_t key = std::hash<std::string>{}(mine.node + '\0' + mine.dest);
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(ranks));
  MPI_Request request;
  MPI_Iallgather(&key, 1, MPI_UINT64_T, keys.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD, &request);
  wait_politely(request, share_cores);
  for (int rank = 0; rank < mine.rank; ++rank) {
    if (keys[static_cast<std::size_t>(rank)] == key) return true;
  }
  return false;
}

// True when this node's cores are shared: its ranks have fewer cores than their busy threads (main
// and writer each), or EZPZ_YEET_SHARED_CORES=1 says other work runs on them (several simulated
// nodes on one machine, scripts/simnodes.sh, where each namespace holds one rank but all share the
// machine's cores: there, ranks spinning for MPI progress starve the ranks and the kernel's network
// processing that would make it).
bool cores_are_shared(const EnvLookup& env) {
  if (setting(env, "EZPZ_YEET_SHARED_CORES") == "1") return true;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int here = 1;
  MPI_Comm_size(node, &here);
  MPI_Comm_free(&node);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  int cores = ::sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  return 2 * here > cores;
}

// The source's end-of-stream message: its read error ("" when none) and per-file hashes.
std::string encode_trailer(const SourceReader& reader) {
  wire::Writer out;
  out.str(reader.error());
  out.u64(reader.file_hashes().size());
  for (std::uint64_t hash : reader.file_hashes()) out.u64(hash);
  return out.take();
}

class Run {
 public:
  Run(const Options& options, int rank, int ranks)
      : m_options(options), m_ranks(ranks), m_env(process_env()), m_share_cores(cores_are_shared(m_env)) {
    m_report.rank = rank;
    m_report.node = node_name(m_env);
  }

  int execute() {
    auto start = std::chrono::steady_clock::now();
    try {
      m_report.dest = expand_dest(m_options.dest, m_report.node, m_report.rank, m_env);
    } catch (const UserError& error) {
      fail(error.what());
    }
    if (dest_inside_src()) return k_exit_usage;
    std::optional<Manifest> manifest = share_manifest();
    if (manifest) copy(*manifest);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<NodeReport> reports = gather_reports(m_report, m_ranks, m_share_cores);
    int exit_code = 0;
    if (m_report.rank == 0) {
      RunSummary summary = summarize(reports, required_successes(m_options.min_success, m_ranks),
                                     manifest ? manifest->total_bytes : 0, seconds);
      std::cerr << summary.text << std::flush;
      exit_code = summary.exit_code;
    }
    MPI_Request request;
    MPI_Ibcast(&exit_code, 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
    wait_politely(request, m_share_cores);
    return exit_code;
  }

 private:
  // Keeps the first reason a node failed.
  void fail(const std::string& message) {
    m_report.outcome = Outcome::failed;
    if (m_report.error.empty()) m_report.error = message;
  }

  bool failed() const { return !m_report.error.empty(); }

  // DEST inside SRC is a usage error on every rank, reported by the lowest rank whose DEST it is.
  bool dest_inside_src() {
    std::string problem;
    if (!failed()) {
      try {
        check_dest_outside_src(m_options.src, m_report.dest);
      } catch (const UserError& error) {
        problem = error.what();
      }
    }
    int mine = problem.empty() ? m_ranks : m_report.rank, first = m_ranks;
    MPI_Request request;
    MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &request);
    wait_politely(request, m_share_cores);
    if (m_report.rank == first) std::cerr << "ezpz yeet: usage error: " << problem << "\n";
    return first < m_ranks;
  }

  // Rank 0 scans the source; everyone gets the manifest, or the reason there is none.
  std::optional<Manifest> share_manifest() {
    std::string message;
    if (m_report.rank == 0) {
      try {
        message = "M" + encode_manifest(scan_source(m_options.src, m_options.unpack));
      } catch (const UserError& error) {
        message = std::string("E") + error.what();
      }
    }
    message = broadcast_bytes(MPI_COMM_WORLD, message, m_share_cores);
    if (message[0] == 'M') return decode_manifest(std::string_view(message).substr(1));
    fail(m_report.rank == 0 ? message.substr(1) : "nothing copied: rank 0 could not read the source");
    return std::nullopt;
  }

  void copy(const Manifest& manifest) {
    std::uint64_t key = manifest_key(manifest, m_report.dest, static_cast<std::uint8_t>(m_options.venv));
    bool relocated =
        m_options.venv == VenvMode::on || (m_options.venv == VenvMode::detect &&
                                           std::any_of(manifest.entries.begin(), manifest.entries.end(),
                                                       [](const Entry& entry) { return entry.path == "pyvenv.cfg"; }));
    bool shared = shares_dest_with_lower_rank(m_report, m_ranks, m_share_cores);
    std::unique_ptr<PendingCopy> staging;
    std::string distrusted;
    if (!failed()) {
      if (shared) {
        m_report.outcome = Outcome::shared;
      } else if (!m_options.force && holds_copy(m_report.dest, manifest, key, relocated, &distrusted)) {
        m_report.outcome = Outcome::cached;
      } else {
        if (!distrusted.empty()) {
          std::cerr << "ezpz yeet: " << m_report.node << " (rank " << m_report.rank << "): " << distrusted
                    << ": copying anew\n"
                    << std::flush;
        }
        staging = start_staging(manifest);
      }
    }
    int wanting = staging ? 1 : 0, total_wanting = 0;
    MPI_Request request;
    MPI_Iallreduce(&wanting, &total_wanting, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
    wait_politely(request, m_share_cores);
    MPI_Comm data = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, m_report.rank == 0 || staging ? 0 : MPI_UNDEFINED, m_report.rank, &data);
    if (data == MPI_COMM_NULL) return;
    if (total_wanting > 0) stream(manifest, data, staging.get(), key);
    MPI_Comm_free(&data);
  }

  std::unique_ptr<PendingCopy> start_staging(const Manifest& manifest) {
    try {
      return std::make_unique<PendingCopy>(manifest, m_report.dest, std::to_string(m_report.rank));
    } catch (const UserError& error) {
      fail(error.what());
      return nullptr;
    }
  }

  void stream(const Manifest& manifest, MPI_Comm data, PendingCopy* staging, std::uint64_t key) {
    std::unique_ptr<SourceReader> reader;
    if (m_report.rank == 0) reader = std::make_unique<SourceReader>(manifest);
    std::string write_error;
    Fault fault = fault_from(m_env);
    Progress progress(manifest.total_bytes, m_report.rank == 0 && !m_options.quiet, ::isatty(2) != 0, std::cerr);

    StreamHooks hooks;
    if (reader) hooks.fill = [&](char* out, std::size_t size) { reader->read(out, size); };
    if (staging) {
      hooks.consume = [&](const char* in, std::size_t size) {
        if (!write_error.empty()) return;
        try {
          staging->write(in, size);
        } catch (const UserError& error) {
          write_error = error.what();
        }
      };
    }
    hooks.sent = [&](std::uint64_t bytes) { progress.advance(bytes); };
    hooks.arrived = [&](std::uint64_t index, char* bytes, std::size_t size) {
      if (m_report.rank == fault.rank && index == fault.chunk && size > 0) bytes[size / 2] ^= 0x5a;
    };
    broadcast_stream(data,
                     StreamPlan{manifest.total_bytes, m_options.chunk_bytes, m_options.pipeline_depth, m_options.route,
                                m_share_cores},
                     hooks);
    progress.finish();

    std::string trailer = broadcast_bytes(data, reader ? encode_trailer(*reader) : std::string(), m_share_cores);
    wire::Reader in(trailer);
    std::string source_error = in.str();
    std::vector<std::uint64_t> hashes(in.u64());
    for (auto& hash : hashes) hash = in.u64();
    if (!staging) return;
    m_report.bytes = staging->bytes_written();
    if (!source_error.empty())
      return fail(m_report.rank == 0 ? source_error : "the source could not be read: " + source_error);
    if (!write_error.empty()) return fail(write_error);
    try {
      staging->commit(hashes, m_options.venv, key);
      m_report.outcome = Outcome::copied;
    } catch (const UserError& error) {
      fail(error.what());
    }
  }

  const Options& m_options;
  int m_ranks;
  EnvLookup m_env;
  bool m_share_cores;
  NodeReport m_report;
};

// The release helper is built with MPICH (the ABI of Cray MPICH and Intel MPI); sites with Open MPI build
// their own (cmake/yeet-helper).
#ifdef OPEN_MPI
constexpr const char* k_launcher_hint =
    "\n  hint: ezpz-yeet-mpi is built with Open MPI: start it with Open MPI's mpiexec or `srun --mpi=pmix`,"
    " one rank per node\n";
#else
constexpr const char* k_launcher_hint =
    "\n  hint: ezpz-yeet-mpi is built with MPICH: start it with MPICH's mpiexec, `srun --mpi=pmi2`"
    " (or MpiDefault=pmi2), Cray PALS or another PMI-compatible launcher, one rank per node\n";
#endif

// A process started by a launcher MPICH cannot talk to (Open MPI's mpiexec, srun without PMI, ezpz
// launch --system local) comes up as a lone MPI process while its launcher says there are more.
std::string lone_process_problem(const EnvLookup& env) {
  try {
    RankInfo info = discover_rank(env);
    if (info.world_size <= 1) return {};
    return "started as rank " + std::to_string(info.rank) + " of " + std::to_string(info.world_size) + " by " +
           info.launcher + ", but MPI sees a single process";
  } catch (const UserError&) {
    return {};
  }
}

}  // namespace

int run_yeet(const Options& options) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks == 1) {
    if (std::string problem = lone_process_problem(process_env()); !problem.empty()) {
      std::cerr << "ezpz yeet: error: " << problem << k_launcher_hint;
      return 1;
    }
  }
  try {
    required_successes(options.min_success, ranks);  // every rank has the same options and answer
  } catch (const UserError& error) {
    if (rank == 0) std::cerr << "ezpz yeet: usage error: " << error.what() << "\n";
    return k_exit_usage;
  }
  return Run(options, rank, ranks).execute();
}

}  // namespace ezpz::core::yeet
