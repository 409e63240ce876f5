// Checks that need the profile: names and directive values, required keys, queues and their limits.
#include <algorithm>
#include <cstring>
#include <map>

#include "ezpz/profile/directive_options.hpp"
#include "ezpz/resolve/resolver.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
namespace {

// Spec keys whose values go into directive lines, which no shell parses: they cannot be quoted, so
// they must not contain anything that would end or split a directive.
const std::vector<std::string> k_directive_keys = {"account",   "queue",       "output", "error",
                                                   "mail.user", "filesystems", "after"};

bool has_value(const JobSpec& spec, const std::string& path) {
  auto value = get_value(spec, path);
  return value && !value->value.empty() && value->value != "";
}

bool directive_safe(const std::string& text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    return std::iscntrl(static_cast<unsigned char>(c)) || c == ' ' || c == '"' || c == '\'' || c == '\\' || c == '#';
  });
}

std::string walltime_text(long seconds) {
  return "'" + format_walltime(seconds) + "'";
}

}  // namespace

void Resolver::check_run() {
  const auto& run = job.spec.run;
  if (!run && job.spec.was_rejected("run")) {
    return;
  } else if (!run) {
    d.error(inputs.spec.loc, "missing required key 'run': the program every rank runs",
            "for example: run: [python3, train.py]");
  } else if (run->value.empty() || run->value.front().empty()) {
    d.error(run->origin.loc, "'run' is empty: it must name the program every rank runs",
            "for example: run: [python3, train.py]");
  }
}

void Resolver::check_name() {
  const auto& name = *job.spec.name;
  // Not strchr: it finds a NUL byte too (the terminator), and bash drops NULs from a script.
  auto allowed = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("._+-").find(c) != std::string_view::npos;
  };
  const std::string& text = name.value;
  if (text.empty() || text[0] == '.' || text[0] == '+' || text[0] == '-' ||
      !std::all_of(text.begin(), text.end(), allowed)) {
    d.error(at(name.origin), "job name '" + printable(name.value) + "' is not accepted by " + job.scheduler->name,
            "use letters, digits, '.', '_', '+' and '-', starting with a letter, digit or '_'");
  }
  auto limit = job.scheduler->max_length.find("name");
  if (limit != job.scheduler->max_length.end() && static_cast<long>(name.value.size()) > limit->second) {
    d.error(at(name.origin), "job name is " + std::to_string(name.value.size()) + " characters long; " +
                                 job.scheduler->name + " accepts at most " + std::to_string(limit->second));
  }
}

void Resolver::check_directive_values() {
  for (const auto& path : k_directive_keys) {
    auto value = get_value(job.spec, path);
    if (!value) continue;
    std::vector<std::string> items = value->value.is_array()
                                         ? value->value.get<std::vector<std::string>>()
                                         : std::vector<std::string>{value->value.get<std::string>()};
    for (const auto& item : items) {
      if (item.empty()) {
        d.error(at(value->origin), "'" + path + "' must not be empty");
      } else if (!directive_safe(item)) {
        d.error(at(value->origin),
                "'" + path + "' value '" + printable(item) + "' cannot go into a scheduler directive",
                "spaces, quotes, backslashes, '#' and control characters are not allowed there");
      }
    }
  }
  check_scheduler_args();
}

std::map<std::string, std::string> Resolver::owned_options() const {
  std::vector<std::string> keys;
  for (const auto& [path, doc] : job_spec_keys()) keys.push_back(path);
  std::map<std::string, std::string> owned;  // option → spec key
  // The directives of spec keys, in the scheduler's and in the profile's spellings (Frontier: -N).
  auto own = [&](const NamedTemplates& templates, const std::string& owner) {
    for (const auto& [name, text] : templates) {
      const std::string& key = owner.empty() ? name : owner;
      if (!text || std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
      for (const auto& option : directive_option_names(job.scheduler->options, *text)) owned.emplace(option, key);
    }
  };
  own(job.scheduler->directives, {});
  own(job.profile->directives, {});
  // A queue's own directives are what the queue is (Frontier's debug queue is the QOS -q debug).
  const Queue* queue = job.spec.queue ? job.profile->find_queue(job.spec.queue->value) : nullptr;
  if (queue != nullptr) own(queue->directives, "queue");
  return owned;
}

// An escape-hatch argument may replace a profile's directive (-l place=…), but not one a spec key
// owns: ezpz checked the key's value (queue limits, walltime), not the argument's. Each entry is read
// as the scheduler reads it, so no spelling, abbreviation or second option slips through.
void Resolver::check_scheduler_args() {
  if (!job.spec.scheduler_args) return;
  auto owned = owned_options();
  for (const auto& arg : job.spec.scheduler_args->value) {
    if (arg.empty() || arg.front() != '-' || !std::none_of(arg.begin(), arg.end(), [](char c) {
          return std::iscntrl(static_cast<unsigned char>(c)) || c == '#';
        })) {
      d.error(at(job.spec.scheduler_args->origin), "scheduler argument '" + printable(arg) + "' is not a single option",
              "each entry starts with '-' and has no '#' (PBS rejects trailing comments) or line breaks");
    } else if (!job.scheduler->options.empty()) {
      check_scheduler_arg(arg, owned);
    }
  }
}

void Resolver::check_scheduler_arg(const std::string& arg, const std::map<std::string, std::string>& owned) {
  SourceLoc loc = at(job.spec.scheduler_args->origin);
  std::string entry = "scheduler argument '" + printable(arg) + "'";
  ParsedDirective parsed = parse_directive(job.scheduler->options, arg);
  bool sets_owned = false;
  for (const auto& option : parsed.options) {
    auto owner = std::find_if(option.options.begin(), option.options.end(),
                              [&](const std::string& name) { return owned.count(name) != 0; });
    if (owner == option.options.end()) continue;
    const std::string& key = owned.at(*owner);
    std::string spelled = option.spelled == *owner ? "" : " (as '" + printable(option.spelled) + "')";
    d.error(loc, entry + " sets '" + *owner + "'" + spelled + ", which the spec key '" + key + "' owns",
            "set '" + key + ":' in the spec instead, so ezpz can check it");
    sets_owned = true;
  }
  std::string reader = job.scheduler->submit.empty() ? job.scheduler->name : job.scheduler->submit.front();
  if (!parsed.problem.empty() && !sets_owned) {
    d.error(loc, entry + " is refused by " + reader + ": " + printable(parsed.problem),
            "each entry is one option and its value, as on the " + reader + " command line");
  }
  if (parsed.options.size() > 1) {
    std::vector<std::string> names;
    for (const auto& option : parsed.options) names.push_back(printable(option.spelled));
    d.error(loc, entry + " sets " + std::to_string(names.size()) + " options: " + quoted_list(names, " and "),
            "one option per entry: give each option an entry of its own");
  }
}

void Resolver::check_workdir() {
  const auto& workdir = job.spec.workdir;
  if (workdir && workdir->value.empty()) {
    // `cd ''` does nothing: the job would run where it starts, $HOME on PBS.
    d.error(at(workdir->origin), "'workdir' must not be empty",
            "leave 'workdir' out to run in the directory the job was submitted from");
  }
}

void Resolver::check_required() {
  const SystemProfile& profile = *job.profile;
  for (const auto& key : profile.required) {
    if (!has_value(job.spec, key) && !job.spec.was_rejected(key)) {
      d.error(inputs.spec.loc, "system '" + profile.name + "' requires '" + key + "'",
              "add '" + key + ":' to the spec or pass --set " + key + "=…");
    }
  }
  if (!profile.filesystems.empty() && job.spec.filesystems) {
    for (const auto& fs : job.spec.filesystems->value) {
      if (std::find(profile.filesystems.begin(), profile.filesystems.end(), fs) == profile.filesystems.end()) {
        d.error(at(job.spec.filesystems->origin), "unknown filesystem '" + fs + "' for system '" + profile.name + "'",
                suggestion_hint(fs, profile.filesystems));
      }
    }
  }
}

// Only queues whose recorded limits take the job are named: a queue without a node or walltime limit
// in the profile (Frontier's debug QOS records no node limit) is not known to fit, and naming it would
// send a job the scheduler refuses there too. Both the node count and the walltime must fit.
std::string Resolver::fitting_queues(long nodes, long walltime) const {
  std::vector<std::string> names;
  for (const auto& queue : job.profile->queues) {
    auto limit = queue.walltime_limit(nodes);
    bool fits = queue.max_nodes && nodes >= queue.min_nodes && nodes <= *queue.max_nodes && limit &&
                walltime <= *limit && (!queue.min_walltime || walltime >= *queue.min_walltime);
    if (fits) names.push_back("'" + queue.name + "'" + (queue.by_request ? " (by request)" : ""));
  }
  if (names.empty()) return "no queue of '" + job.profile->name + "' takes this job";
  return "queues that fit: " + join(names, ", ");
}

const Queue* Resolver::check_queue() {
  const SystemProfile& profile = *job.profile;
  const auto& queue_field = job.spec.queue;
  if (profile.queues.empty()) return nullptr;
  if (!queue_field) {
    d.error(inputs.spec.loc, "no queue given and system '" + profile.name + "' has no default queue",
            "queues: " + quoted_list(profile.queue_names(), ", "));
    return nullptr;
  }
  const Queue* queue = profile.find_queue(queue_field->value);
  if (queue == nullptr && queue_field->value.empty()) {
    return nullptr;  // reported as an empty directive value
  } else if (queue == nullptr) {
    d.error(at(queue_field->origin), "unknown queue '" + queue_field->value + "' for system '" + profile.name + "'",
            suggestion_hint(queue_field->value, profile.queue_names()));
    return nullptr;
  }
  const auto& nodes = *job.spec.nodes;
  const auto& walltime = *job.spec.walltime;
  // The scheduler is asked for the spares as well.
  long requested = requested_nodes();
  std::string counted = requested == nodes.value
                            ? std::to_string(requested)
                            : std::to_string(requested) + " (nodes " + std::to_string(nodes.value) +
                                  " + supervise.spare_nodes " + std::to_string(requested - nodes.value) + ")";
  if (requested < queue->min_nodes) {
    d.error(
        at(nodes.origin),
        "queue '" + queue->name + "' needs at least " + std::to_string(queue->min_nodes) + " nodes, found " + counted,
        fitting_queues(requested, walltime.value));
  } else if (queue->max_nodes && requested > *queue->max_nodes) {
    d.error(at(nodes.origin),
            "nodes " + counted + " is over the limit of queue '" + queue->name + "' (at most " +
                std::to_string(*queue->max_nodes) + ")",
            fitting_queues(requested, walltime.value));
  }
  if (queue->min_walltime && walltime.value < *queue->min_walltime) {
    d.error(at(walltime.origin),
            "walltime " + walltime_text(walltime.value) + " is under the minimum of queue '" + queue->name + "' (" +
                format_walltime(*queue->min_walltime) + ")",
            "ask for at least " + format_walltime(*queue->min_walltime));
  }
  if (auto limit = queue->walltime_limit(requested); limit && walltime.value > *limit) {
    d.error(at(walltime.origin),
            "walltime " + walltime_text(walltime.value) + " is over the limit of queue '" + queue->name + "' for " +
                counted + " node" + (requested == 1 ? "" : "s") + " (" + format_walltime(*limit) + ")",
            fitting_queues(requested, walltime.value));
  }
  warn_queue_rules(*queue);
  return queue;
}

// A queue that takes only some ranks_per_node values (Sophia's by-gpu: select=N GPUs, N in 1, 2, 4, 8);
// qsub refuses the others.
void Resolver::check_queue_ranks(const Queue* queue) {
  if (queue == nullptr || queue->ranks_per_node.empty()) return;
  const auto& rpn = *job.spec.ranks_per_node;
  const auto& allowed = queue->ranks_per_node;
  if (std::find(allowed.begin(), allowed.end(), rpn.value) != allowed.end()) return;
  d.error(at(rpn.origin),
          "queue '" + queue->name + "' of system '" + job.profile->name + "' takes ranks_per_node " +
              join(allowed, ", ") + ", found " + std::to_string(rpn.value),
          "set ranks_per_node to one of them");
}

// Rules the scheduler applies by holding a job rather than failing it: resolve cannot see the user's
// other jobs (it is pure), so it says what they are and lets the job through; `ezpz doctor` counts them
// (doctor/cap_checks.cpp).
void Resolver::warn_queue_rules(const Queue& queue) {
  SourceLoc loc = at(job.spec.queue->origin);
  if (queue.by_request) {
    d.warning(loc, "queue '" + queue.name + "' of system '" + job.profile->name + "' is available by request only",
              "the site must enable it for the project first; otherwise the job is refused");
  }
  if (!queue.caps.empty()) {
    std::vector<std::string> caps;
    for (const auto& cap : queue.caps) caps.push_back(cap.describe());
    d.warning(loc, "queue '" + queue.name + "' limits jobs: " + join(caps, "; "),
              "validate cannot see your other jobs: one over these limits is held until earlier ones finish (or "
              "refused at submission), it does not fail; `ezpz doctor` with this spec counts your and your "
              "project's jobs against them");
  }
}

}  // namespace ezpz::core
