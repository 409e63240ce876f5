// Reading the health probe's answers.
#include "ezpz/runtime/health_probe.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

constexpr std::string_view k_answer = "ezpz-probe ";

struct Answer {
  std::string kind;
  long count = 0;
};

}  // namespace

std::string probe_answer(const std::string& node, const Devices& seen) {
  long count = seen.kind == DeviceKind::cpu ? 0 : seen.count;
  return std::string(k_answer) + "node=" + node + " devices=" + device_kind_name(seen.kind) + ":" +
         std::to_string(count);
}

std::vector<Evidence> probe_evidence(const std::vector<std::string>& hosts, const std::string& out,
                                     const std::string& why_ended, const NodeNames& names, std::string& note) {
  std::map<std::string, Answer> answers;  // by allocation host
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    auto at = line.find(k_answer);  // a launcher may put its own prefix before a task's line
    if (at == std::string::npos) continue;
    std::string node, devices;
    for (const auto& word : split_words(std::string_view(line).substr(at + k_answer.size()))) {
      if (auto rest = strip_prefix(word, "node=")) node = *rest;
      if (auto rest = strip_prefix(word, "devices=")) devices = *rest;
    }
    auto host = names.host_named(node);
    auto colon = devices.find(':');
    if (!host || colon == std::string::npos) continue;
    Answer answer{devices.substr(0, colon), 0};
    std::string count = devices.substr(colon + 1);
    if (count.empty() || count.size() > 6 ||
        !std::all_of(count.begin(), count.end(), [](unsigned char c) { return c >= '0' && c <= '9'; }))
      continue;
    answer.count = std::stol(count);
    answers[*host] = answer;
  }
  std::vector<Evidence> evidence;
  if (answers.empty()) {
    note = "the probe got no answer from any of the " + std::to_string(hosts.size()) + " node(s) (" + why_ended +
           "): that proves nothing about one node";
    return evidence;
  }
  long most = 0;
  for (const auto& [host, answer] : answers) most = std::max(most, answer.count);
  for (const auto& host : hosts) {
    auto found = answers.find(host);
    if (found == answers.end()) {
      evidence.push_back(
          {host, "probe",
           "no answer (" + why_ended + "), while " + std::to_string(answers.size()) + " other node(s) answered"});
    } else if (found->second.count < most) {
      evidence.push_back({host, "probe",
                          "sees " + std::to_string(found->second.count) + " " + found->second.kind +
                              " device(s), other nodes " + std::to_string(most)});
    }
  }
  return evidence;
}

}  // namespace ezpz::core
