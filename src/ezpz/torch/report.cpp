#include "ezpz/torch/report.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "ezpz/util/text.hpp"

namespace ezpz::torch {
namespace {

using Json = nlohmann::ordered_json;

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string fixed(const std::optional<double>& value, int decimals) {
  return value ? fixed(*value, decimals) : std::string("-");
}

Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json row_json(const RankResult& r) {
  return Json{{"rank", r.rank},
              {"local_rank", r.local_rank},
              {"node", r.node},
              {"device", r.device},
              {"backend", r.backend},
              {"init_s", r.init_seconds},
              {"allreduce_latency_us", optional_number(r.latency_us)},
              {"allreduce_bandwidth_gbps", optional_number(r.bandwidth_gbps)},
              {"ok", r.ok()},
              {"errors", r.errors}};
}

// Left-aligned text columns, right-aligned number columns, two spaces apart.
std::string layout(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right_aligned) {
  std::vector<size_t> width(right_aligned.size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string text;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      if (c > 0) line += "  ";
      line += right_aligned[c] ? pad + row[c] : row[c] + (c + 1 < row.size() ? pad : "");
    }
    text += line + "\n";
  }
  return text;
}

}  // namespace

std::string to_text(const RankResult& result) {
  return row_json(result).dump();
}

RankResult from_text(const std::string& text) {
  try {
    const auto j = Json::parse(text);
    RankResult r;
    r.rank = j.at("rank").get<int>();
    r.local_rank = j.at("local_rank").get<int>();
    r.node = j.at("node").get<std::string>();
    r.device = j.at("device").get<std::string>();
    r.backend = j.at("backend").get<std::string>();
    r.init_seconds = j.at("init_s").get<double>();
    if (!j.at("allreduce_latency_us").is_null()) r.latency_us = j.at("allreduce_latency_us").get<double>();
    if (!j.at("allreduce_bandwidth_gbps").is_null()) {
      r.bandwidth_gbps = j.at("allreduce_bandwidth_gbps").get<double>();
    }
    r.errors = j.at("errors").get<std::vector<std::string>>();
    return r;
  } catch (const Json::exception& error) {
    throw std::runtime_error("unreadable result row '" + text + "': " + error.what());
  }
}

std::vector<std::string> TestReport::node_names() const {
  std::vector<std::string> names;
  for (const auto& row : rows) {
    if (row && std::find(names.begin(), names.end(), row->node) == names.end()) names.push_back(row->node);
  }
  return names;
}

std::vector<std::string> TestReport::failures() const {
  std::vector<std::string> list;
  if (static_cast<int>(rows.size()) != world_size) {
    list.push_back("expected " + std::to_string(world_size) + " rows, have " + std::to_string(rows.size()));
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!rows[r]) {
      list.push_back("rank " + std::to_string(r) + ": " + missing_reason);
      continue;
    }
    for (const auto& error : rows[r]->errors) list.push_back("rank " + std::to_string(r) + ": " + error);
  }
  return list;
}

std::string TestReport::summary_line() const {
  const auto nodes = node_names().size();
  std::string line = "ezpz test: " + std::to_string(world_size) + (world_size == 1 ? " rank" : " ranks") + " on " +
                     std::to_string(nodes) + " node(s): ";
  const auto problems = failures();
  if (problems.empty()) return line + (settings.quick ? "all-reduce OK" : "all-reduce, broadcast, barrier OK");
  return line + "FAILED (" + core::join(problems, "; ") + ")";
}

std::string TestReport::table() const {
  std::string text = "ezpz test: world size " + std::to_string(world_size) + ", " +
                     std::to_string(node_names().size()) + " node(s), " + settings.libtorch;
  if (settings.quick) {
    text += ", one all-reduce (--quick)\n";
  } else {
    text += ", latency: median of " + std::to_string(settings.iterations) + " 1-element all-reduces, bandwidth: " +
            fixed(settings.size_mb, settings.size_mb == static_cast<int>(settings.size_mb) ? 0 : 2) +
            " MiB float32 all-reduce\n";
  }
  std::vector<std::vector<std::string>> cells = {
      {"rank", "local", "node", "device", "backend", "init s", "latency us", "bandwidth GB/s", "status"}};
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!rows[r]) {
      cells.push_back({std::to_string(r), "-", "-", "-", "-", "-", "-", "-", "MISSING"});
      continue;
    }
    const auto& row = *rows[r];
    cells.push_back({std::to_string(row.rank), std::to_string(row.local_rank), row.node, row.device, row.backend,
                     fixed(row.init_seconds, 3), fixed(row.latency_us, 1), fixed(row.bandwidth_gbps, 3),
                     row.ok() ? "ok" : "FAILED"});
  }
  text += layout(cells, {true, true, false, false, false, true, true, true, false});
  for (const auto& failure : failures()) text += "  " + failure + "\n";
  return text + summary_line() + "\n";
}

std::string TestReport::json() const {
  Json ranks = Json::array();
  for (size_t r = 0; r < rows.size(); ++r) {
    ranks.push_back(rows[r] ? row_json(*rows[r])
                            : Json{{"rank", r}, {"ok", false}, {"errors", Json::array({missing_reason})}});
  }
  const Json checks =
      settings.quick ? Json::array({"all-reduce"}) : Json::array({"all-reduce", "broadcast", "barrier"});
  const Json document = {{"world_size", world_size},
                         {"nodes", node_names().size()},
                         {"node_names", node_names()},
                         {"libtorch", settings.libtorch},
                         {"checks", checks},
                         {"iterations", settings.quick ? Json(nullptr) : Json(settings.iterations)},
                         {"size_mb", settings.quick ? Json(nullptr) : Json(settings.size_mb)},
                         {"ok", ok()},
                         {"failures", failures()},
                         {"summary", summary_line()},
                         {"ranks", ranks}};
  return document.dump(2) + "\n";
}

}  // namespace ezpz::torch
