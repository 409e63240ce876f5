// `ezpz api`: the public C++ API (src/ezpz/*.hpp) as JSON lines on stdin and stdout, the one door
// through which the Python package (and any other language) reaches ezpz's rules (docs/python.md).
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "ezpz/cli/command.hpp"
#include "ezpz/ezpz.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/yaml_node.hpp"

// The calls are written against the public API (namespace ezpz), where core's names do not reach.
namespace ezpz {
namespace {

using core::k_max_depth;
using core::quoted_cut;
using core::UserError;
using nlohmann::json;

// A JSON value as a spec Value (JSON has no other kinds; integers stay integers).
// A request's JSON value as a Value. Deeper than k_max_depth is refused on the way down, where the
// key path is known: the spec's own reading would refuse it too, and the recursion here must stop.
Value to_value(const json& value, const std::string& path = "", int depth = 0) {
  if (depth > k_max_depth) {
    throw UserError("ezpz api: the values at " + quoted_cut(path, 200) + " nest deeper than " +
                    std::to_string(k_max_depth) + " levels");
  }
  switch (value.type()) {
    case json::value_t::null:
      return {};
    case json::value_t::boolean:
      return value.get<bool>();
    case json::value_t::number_integer:
      return value.get<long long>();
    case json::value_t::number_unsigned:
      return value.get<unsigned long long>();
    case json::value_t::number_float:
      return value.get<double>();
    case json::value_t::string:
      return value.get<std::string>();
    case json::value_t::array: {
      Value list = Value::list();
      for (size_t i = 0; i < value.size(); ++i) {
        list.push_back(to_value(value[i], path + "[" + std::to_string(i) + "]", depth + 1));
      }
      return list;
    }
    case json::value_t::object: {
      Value map = Value::map();
      for (const auto& [key, item] : value.items()) {
        map.set(key, to_value(item, path.empty() ? key : path + "." + key, depth + 1));
      }
      return map;
    }
    default:
      throw UserError("ezpz api: a spec value must be null, a boolean, a number, a string, a list or a map");
  }
}

json diagnostic_json(const Diagnostic& diagnostic) {
  return {{"where", diagnostic.where},     {"file", diagnostic.file},       {"line", diagnostic.line},
          {"column", diagnostic.column},   {"message", diagnostic.message}, {"hint", diagnostic.hint},
          {"warning", diagnostic.warning}, {"text", diagnostic.text}};
}

json rank_info_json(const RankInfo& rank) {
  return {{"rank", rank.rank},
          {"world_size", rank.world_size},
          {"local_rank", rank.local_rank},
          {"local_world_size", rank.local_world_size},
          {"node_rank", rank.node_rank},
          {"launcher", rank.launcher},
          {"variables", rank.variables}};
}

// The request's members, with the defaults of a member left out.
struct Request {
  const json& body;
  std::string text(const char* key) const { return body.value(key, std::string()); }
  bool flag(const char* key) const { return body.value(key, false); }
  std::map<std::string, std::string> strings(const char* key) const {
    return body.value(key, std::map<std::string, std::string>());
  }
};

// {"path": P} | {"text": YAML, "name": N} | {"values": {...}, "name": N}
Spec spec_of(const Request& request) {
  const json& spec = request.body.at("spec");
  if (spec.contains("path")) return Spec::from_file(spec.at("path").get<std::string>());
  if (spec.contains("text")) return Spec::from_text(spec.at("text").get<std::string>(), spec.value("name", "<text>"));
  if (spec.contains("values")) return Spec::from_values(to_value(spec.at("values")), spec.value("name", "<dict>"));
  throw UserError("ezpz api: 'spec' needs 'path', 'text' or 'values'");
}

// --system, --set and the EZPZ_* overrides: `env` when given, else this process's environment.
ResolveOptions resolve_options(const Request& request) {
  ResolveOptions options;
  options.system = request.text("system");
  options.set = request.body.value("set", std::vector<std::string>());
  options.process_env = !request.body.contains("env");
  options.env = request.strings("env");
  options.detect = true;
  return options;
}

// Runs scheduler commands in the caller's process: each one is a line {"run": {"argv", "cwd"}} on
// stdout, answered by a line {"exit_code", "out", "err"} on stdin (the Python package's `run=`).
class CallerRunner : public ProcessRunner {
 public:
  ProcessResult run(const std::vector<std::string>& argv, const std::string& cwd) override {
    std::cout << json{{"run", {{"argv", argv}, {"cwd", cwd}}}}.dump() << std::endl;
    std::string line;
    if (!std::getline(std::cin, line))
      throw UserError("ezpz api: the caller did not answer the run of '" + argv.at(0) + "'");
    json answer = json::parse(line, nullptr, false);
    auto field = [&](const char* key, bool (json::*is)() const noexcept) {
      return answer.is_object() && answer.contains(key) && (answer[key].*is)();
    };
    if (!field("exit_code", &json::is_number_integer) || !field("out", &json::is_string) ||
        !field("err", &json::is_string)) {
      throw UserError("ezpz api: the caller's answer to the run of " + quoted_cut(argv.at(0), 60) +
                      " is not {\"exit_code\": INT, \"out\": TEXT, \"err\": TEXT}: " + quoted_cut(line, 200));
    }
    ProcessResult result;
    std::int64_t code = answer["exit_code"].get<std::int64_t>();
    // subprocess's -N for a signal N is the shell's 128 + N.
    result.exit_code = static_cast<int>(std::clamp<std::int64_t>(code < 0 ? 128 - code : code, 0, 255));
    result.out = answer["out"].get<std::string>();
    result.err = answer["err"].get<std::string>();
    return result;
  }
};

std::unique_ptr<ProcessRunner> runner_for(const Request& request) {
  if (request.text("runner") == "caller") return std::make_unique<CallerRunner>();
  return make_process_runner();
}

JobQuery job_query(const Request& request) {
  return {request.text("job_id"), request.text("records_dir"), request.text("system")};
}

using Call = json (*)(const Catalog& catalog, const Request& request);

struct ApiCall {
  const char* name;
  Call call;
};

// Every call, by name; each takes the request's members its C++ function takes (docs/python.md).
const ApiCall k_calls[] = {
    {"version", [](const Catalog&, const Request&) -> json { return version(); }},
    {"systems",
     [](const Catalog& catalog, const Request&) -> json {
       json out = json::array();
       for (const auto& system : catalog.systems()) {
         out.push_back({{"name", system.name},
                        {"description", system.description},
                        {"scheduler", system.scheduler},
                        {"path", system.path}});
       }
       return out;
     }},
    {"render",
     [](const Catalog& catalog, const Request& request) -> json {
       Job job = resolve(catalog, spec_of(request), resolve_options(request));
       return render(job, request.body.value("ezpz_bin", "ezpz")).text;
     }},
    {"resolve",
     [](const Catalog& catalog, const Request& request) -> json {
       Job job = resolve(catalog, spec_of(request), resolve_options(request));
       return json::parse(job.to_json(request.flag("explain")));
     }},
    {"validate",
     [](const Catalog& catalog, const Request& request) -> json {
       json out = json::array();
       for (const auto& diagnostic : validate(catalog, spec_of(request), resolve_options(request))) {
         out.push_back(diagnostic_json(diagnostic));
       }
       return out;
     }},
    {"submit",
     [](const Catalog& catalog, const Request& request) -> json {
       Job job = resolve(catalog, spec_of(request), resolve_options(request));
       Script script = render(job, request.body.value("ezpz_bin", "ezpz"));
       auto runner = runner_for(request);
       Submission submission = submit(job, script, *runner,
                                      {request.text("records_dir"), request.text("submit_dir"), request.flag("hold")});
       return {{"job_id", submission.job_id},
               {"record_dir", submission.record_dir},
               {"script", submission.script},
               {"system", job.system()}};
     }},
    {"status",
     [](const Catalog& catalog, const Request& request) -> json {
       auto runner = runner_for(request);
       JobStatus state = status(catalog, job_query(request), *runner);
       return {{"job_id", state.job_id},
               {"state", state.state},
               {"done", state.done},
               {"exit_code", state.exit_code ? json(*state.exit_code) : json()},
               {"scheduler_state", state.scheduler_state},
               {"detail", state.detail}};
     }},
    {"cancel",
     [](const Catalog& catalog, const Request& request) -> json {
       auto runner = runner_for(request);
       return cancel(catalog, job_query(request), *runner);
     }},
    {"discover_rank",
     [](const Catalog&, const Request& request) -> json {
       return rank_info_json(discover_rank(request.strings("env")));
     }},
    {"rank_setup",
     [](const Catalog& catalog, const Request& request) -> json {
       RankSetup setup = rank_setup(catalog, request.strings("env"), request.text("hostname"),
                                    request.body.value("device_root", "/"));
       json out = rank_info_json(setup.rank);
       out["system"] = setup.system;
       out["scheduler"] = setup.scheduler;
       out["generic_system"] = setup.generic_system;
       out["device"] = setup.device;
       out["backend"] = setup.backend;
       out["master_addr"] = setup.master_addr;
       out["master_port"] = setup.master_port;
       out["nodes"] = setup.nodes;
       out["job_id"] = setup.job_id;
       out["hosts"] = setup.hosts;
       out["gpus_per_node"] = setup.gpus_per_node;
       out["exports"] = setup.exports;
       out["notes"] = setup.notes;
       return out;
     }},
};

Call find_call(const std::string& name) {
  for (const auto& call : k_calls) {
    if (name == call.name) return call.call;
  }
  std::string names;
  for (const auto& call : k_calls) names += std::string(names.empty() ? "" : ", ") + call.name;
  throw UserError("ezpz api: unknown call '" + name + "'", "the calls are " + names);
}

// One request line in, one answer line out: {"result": …}, or {"error": …, "diagnostics": […]} and
// exit 1 for a problem the caller can fix (the same problems the command reports on stderr).
int run_api() {
  std::string line;
  if (!std::getline(std::cin, line))
    throw UserError("ezpz api: no request on standard input", "echo '{\"call\": \"version\"}' | ezpz api");
  json body = json::parse(line, nullptr, false);
  if (body.is_discarded() || !body.is_object())
    throw UserError("ezpz api: the request is not a JSON object on one line");
  Request request{body};
  try {
    Call call = find_call(request.text("call"));
    json result = call(Catalog{}, request);
    std::cout << json{{"result", result}}.dump() << std::endl;
    return core::k_exit_ok;
  } catch (const Error& error) {
    json diagnostics = json::array();
    for (const auto& diagnostic : error.diagnostics()) diagnostics.push_back(diagnostic_json(diagnostic));
    std::cout << json{{"error", error.what()}, {"diagnostics", diagnostics}}.dump() << std::endl;
    return core::k_exit_user_error;
  } catch (const json::exception& error) {
    throw UserError(std::string("ezpz api: a member of the request has the wrong type: ") + error.what());
  }
}

}  // namespace
}  // namespace ezpz

namespace ezpz::core {

void add_api_command(CLI::App& app, CommandAction& action) {
  CLI::App* command =
      app.add_subcommand("api", "The library's calls as JSON on stdin and stdout (for Python and tools)");
  command->footer(
      "Reads one request line, a JSON object {\"call\": NAME, …}, and writes one answer line:\n"
      "{\"result\": …}, or {\"error\": MESSAGE, \"diagnostics\": […]} with exit status 1.\n"
      "Calls: version, systems, render, resolve, validate, submit, status, cancel, discover_rank,\n"
      "rank_setup; their members are those of the Python package's functions (docs/python.md).\n"
      "Example: echo '{\"call\": \"render\", \"spec\": {\"path\": \"job.yaml\"}}' | ezpz api");
  command->callback([&action] { action = run_api; });
}

}  // namespace ezpz::core
