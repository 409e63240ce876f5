// bench/hostlist_lib: ezpz's host-list library against Slurm's own (libslurm), in one process, on the
// inputs of bench/hostlist; no process start on either side. Built and run by bench/hostlist-lib.
#include <slurm/slurm.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ezpz/util/hostlist.hpp"

namespace {

// What each side does, as its command does it, minus printing:
// - expand: ezpz::core::expand_hostlist returns every name in a vector; libslurm creates a hostlist and
//   shifts each name off it (a malloc'd string the caller frees), as `scontrol show hostnames` does.
// - compress, from the names comma-separated in one string: ezpz expands that string and compresses
//   the names (what `ezpz hostlist compress` does with one argument); libslurm creates a hostlist from
//   it and prints it ranged, as `scontrol show hostlist` does.
// Each returns a number derived from its output, so the work cannot be optimised away.
size_t ezpz_expand(const std::string& list) {
  size_t total = 0;
  for (const auto& name : ezpz::core::expand_hostlist(list)) total += name.size();
  return total;
}

size_t slurm_expand(const std::string& list) {
  hostlist_t hl = slurm_hostlist_create(list.c_str());
  size_t total = 0;
  while (char* host = slurm_hostlist_shift(hl)) {
    total += std::strlen(host);
    std::free(host);
  }
  slurm_hostlist_destroy(hl);
  return total;
}

std::string ezpz_compress_text(const std::string& names) {
  return ezpz::core::compress_hostlist(ezpz::core::expand_hostlist(names));
}

std::string slurm_compress_text(const std::string& names) {
  hostlist_t hl = slurm_hostlist_create(names.c_str());
  char* ranged = slurm_hostlist_ranged_string_malloc(hl);
  std::string text = ranged;
  std::free(ranged);
  slurm_hostlist_destroy(hl);
  return text;
}

size_t ezpz_compress(const std::string& names) {
  return ezpz_compress_text(names).size();
}
size_t slurm_compress(const std::string& names) {
  return slurm_compress_text(names).size();
}

std::vector<std::string> slurm_names(const std::string& list) {
  std::vector<std::string> names;
  hostlist_t hl = slurm_hostlist_create(list.c_str());
  if (hl == nullptr) return names;
  while (char* host = slurm_hostlist_shift(hl)) {
    names.emplace_back(host);
    std::free(host);
  }
  slurm_hostlist_destroy(hl);
  return names;
}

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ",") + name;
  return text;
}

struct Case {
  std::string name;
  std::string input;
  std::function<size_t(const std::string&)> ezpz;
  std::function<size_t(const std::string&)> slurm;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(q * (values.size() - 1) + 0.5)];
}

double time_us(const std::function<size_t(const std::string&)>& run, const std::string& input, size_t& sink) {
  auto start = std::chrono::steady_clock::now();
  sink += run(input);
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(end - start).count();
}

int fail(const std::string& message) {
  std::fprintf(stderr, "bench/hostlist_lib: %s\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // hostlist_lib [RUNS [WARMUP]]: check, then time both sides.
  // hostlist_lib once CASE ezpz|libslurm|none: run one side once on input CASE (0-3), for callgrind;
  // "none" is the same process without the call, so the difference is the call's instructions.
  std::vector<std::string> args(argv + 1, argv + argc);
  bool once = !args.empty() && args[0] == "once";
  int runs = !once && args.size() > 0 ? std::atoi(args[0].c_str()) : 1000;
  int warmup = !once && args.size() > 1 ? std::atoi(args[1].c_str()) : 50;
  if ((once && args.size() != 3) || runs < 1 || warmup < 0) {
    return fail("usage: hostlist_lib [RUNS [WARMUP]] | hostlist_lib once CASE ezpz|libslurm|none");
  }

  // The inputs of bench/hostlist.
  std::string one_range = "nid[000001-010000]";
  std::string ranges;
  for (int i = 0; i < 100; ++i) {
    char range[32];
    std::snprintf(range, sizeof range, "%06d-%06d", i * 200 + 1, i * 200 + 100);
    ranges += (ranges.empty() ? "" : ",") + std::string(range);
  }
  std::string hundred_ranges = "nid[" + ranges + "]";
  std::vector<std::string> lists = {one_range, hundred_ranges};
  std::vector<std::string> name_texts;
  for (const auto& list : lists) name_texts.push_back(join(ezpz::core::expand_hostlist(list)));
  std::vector<Case> cases = {
      {"expand, 1 range", one_range, ezpz_expand, slurm_expand},
      {"expand, 100 ranges", hundred_ranges, ezpz_expand, slurm_expand},
      {"compress, 10,000 names -> 1 range", name_texts[0], ezpz_compress, slurm_compress},
      {"compress, 10,000 names -> 100 ranges", name_texts[1], ezpz_compress, slurm_compress},
  };

  if (once) {
    size_t index = std::strtoul(args[1].c_str(), nullptr, 10);
    if (index >= cases.size()) return fail("no case " + args[1]);
    const Case& c = cases[index];
    size_t sink = args[2] == "ezpz" ? c.ezpz(c.input) : args[2] == "libslurm" ? c.slurm(c.input) : 0;
    return sink == 1 ? 1 : 0;  // uses the result; never 1
  }

  // Correctness first: the same names in the same order, and the same compact lists.
  for (size_t i = 0; i < lists.size(); ++i) {
    std::vector<std::string> ours = ezpz::core::expand_hostlist(lists[i]);
    if (ours.size() != 10000) return fail("expand " + lists[i] + ": " + std::to_string(ours.size()) + " names");
    if (ours != slurm_names(lists[i])) return fail("expand " + lists[i] + ": ezpz and libslurm differ");
    std::string compact = ezpz_compress_text(name_texts[i]);
    std::string theirs = slurm_compress_text(name_texts[i]);
    if (compact != theirs) {
      return fail("compress: ezpz gives " + compact.substr(0, 60) + ", libslurm " + theirs.substr(0, 60));
    }
    if (compact != lists[i]) return fail("compress does not give back " + lists[i].substr(0, 60));
  }

  std::printf(
      "| input | ezpz median (us) | ezpz IQR (us) | libslurm median (us) | libslurm IQR (us) | libslurm/ezpz |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  size_t sink = 0;
  std::vector<std::string> noisy;
  for (const auto& c : cases) {
    // Interleaved, alternating which side goes first, so a slow moment of the machine hits both.
    std::vector<double> ezpz_us;
    std::vector<double> slurm_us;
    for (int i = 0; i < warmup + runs; ++i) {
      double e = 0;
      double s = 0;
      if (i % 2 == 0) {
        e = time_us(c.ezpz, c.input, sink);
        s = time_us(c.slurm, c.input, sink);
      } else {
        s = time_us(c.slurm, c.input, sink);
        e = time_us(c.ezpz, c.input, sink);
      }
      if (i < warmup) continue;
      ezpz_us.push_back(e);
      slurm_us.push_back(s);
    }
    double e = median(ezpz_us);
    double s = median(slurm_us);
    double e_iqr = quantile(ezpz_us, 0.75) - quantile(ezpz_us, 0.25);
    double s_iqr = quantile(slurm_us, 0.75) - quantile(slurm_us, 0.25);
    std::printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f |\n", c.name.c_str(), e, e_iqr, s, s_iqr, s / e);
    if (e_iqr > 0.2 * e) noisy.push_back("ezpz " + c.name);
    if (s_iqr > 0.2 * s) noisy.push_back("libslurm " + c.name);
  }
  std::printf("\n%d timed runs of each side per input (%d warm-up), interleaved. (checksum %zu)\n", runs, warmup, sink);
  if (!noisy.empty()) {
    std::string rows;
    for (const auto& row : noisy) rows += (rows.empty() ? "" : "; ") + row;
    std::printf("WARNING: interquartile range over 20%% of the median, repeat the run: %s\n", rows.c_str());
  }
  return 0;
}
