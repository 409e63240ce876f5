// Host lists: the input is a Slurm host list (SLURM_JOB_NODELIST) and, read as a PBS nodefile, a list
// of names. Properties: what expands compresses to a list that expands to the same names sorted and
// deduplicated (compress_hostlist's contract), and first_host agrees with expand_hostlist.
// Seeds: fuzz/corpus/hostlist.
#include <algorithm>
#include <set>

#include "ezpz/util/hostlist.hpp"
#include "fuzz_support.hpp"

using namespace ezpz::core;

namespace {

// Small enough that a run spends its time on parsing, not on writing out millions of names.
const HostLimits k_limits{4096, 1 << 20};

// compress → expand gives `hosts` deduplicated, as a set (the order is compress_hostlist's own).
void check_round_trip(const std::vector<std::string>& hosts) {
  std::string compressed;
  if (!fuzz::accepted([&] { compressed = compress_hostlist(hosts); })) return;  // a name no list can hold
  std::vector<std::string> again;
  if (!fuzz::accepted([&] { again = expand_hostlist(compressed, "compressed"); }))
    fuzz::property_failed("compress_hostlist gave a list expand_hostlist refuses: " + compressed);
  std::set<std::string> want;
  for (const auto& host : hosts) {
    if (!host.empty()) want.insert(host);
  }
  if (std::set<std::string>(again.begin(), again.end()) != want || again.size() != want.size())
    fuzz::property_failed("compress then expand changed the names: " + compressed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  std::vector<std::string> hosts;
  if (fuzz::accepted([&] { hosts = expand_hostlist(text, "SLURM_JOB_NODELIST", k_limits); })) {
    std::string first;
    bool has_first = fuzz::accepted([&] { first = first_host(text, "SLURM_JOB_NODELIST"); });
    if (hosts.empty() ? has_first : (!has_first || first != hosts.front()))
      fuzz::property_failed("first_host disagrees with expand_hostlist");
    check_round_trip(hosts);
  }
  check_round_trip(read_nodefile(text));
  return 0;
}
