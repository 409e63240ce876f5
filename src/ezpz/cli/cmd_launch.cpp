// `ezpz launch -- CMD`: start every rank of CMD in this allocation with the system's own launcher.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include "ezpz/cli/cli.hpp"
#include "ezpz/cli/command.hpp"
#include "ezpz/cli/command_words.hpp"
#include "ezpz/cli/launch_failover.hpp"
#include "ezpz/cli/runtime_command.hpp"
#include "ezpz/runtime/end_signal.hpp"
#include "ezpz/runtime/launch.hpp"
#include "ezpz/runtime/restarts.hpp"
#include "ezpz/runtime/retry.hpp"
#include "ezpz/runtime/torchrun_env.hpp"
#include "ezpz/submit/process.hpp"
#include "ezpz/util/exec.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/regex.hpp"
#include "ezpz/util/signals.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
namespace {

struct LaunchOptions {
  std::string system;
  long ranks = 0;
  long ranks_per_node = 0;
  long nodes = 0;
  std::string hostfile;
  std::string cpu_bind;
  std::string timeout;
  long retries = 0;
  double retry_delay = 10.0;
  std::string signal = "USR2";
  std::string signal_before;
  long max_restarts = -1;  // -1: no limit
  long spare_nodes = 0;
  std::string progress;
  std::string startup = "5m";
  std::string probe_timeout = "1m";
  bool label = false;
  std::string log_dir;
  bool verbatim = false;
  bool dry_run = false;
  std::vector<std::string> launcher_options;  // options before "--" that are not ezpz's: `-x FOO=bar`
};

// The counts of a launch, by every name they have: ezpz's and the Python ezpz launch's
// (src/ezpz/cli/flags.py, build_launch_parser), whose lines therefore run unchanged.
struct CountOption {
  const char* names;
  const char* help;
  long LaunchOptions::*value;
};
const CountOption k_count_options[] = {
    {"-n,-np,--ranks,--np,--n,--nproc,--nprocs,--world_size", "total ranks (default: nodes x ranks per node)",
     &LaunchOptions::ranks},
    {"-ppn,--ranks-per-node,--ppn,--nproc_per_node",
     "ranks per node, the spec key ranks_per_node (default: the profile's, one per device)",
     &LaunchOptions::ranks_per_node},
    {"-nh,--nodes,--nh,--nhost,--nhosts,--nnode,--nnodes", "nodes to use (default: every host of the allocation)",
     &LaunchOptions::nodes},
};

// `-x NAME=VALUE` / `-x NAME` (Open MPI's mpiexec spelling, which the Python ezpz passes on): the
// variable reaches every rank, on every system. ezpz sets it here; launchers that pass the whole
// environment (local, MPICH's Hydra, PALS, srun) take it from there, and one that needs each variable
// named (the profile's launcher.env_option, e.g. Open MPI's -x) gets its name (runtime/launch.cpp).
// Passed on unchanged, srun would read -x as "exclude these nodes".
const char* const k_variable_option = "-x";

// The variables `-x` names in `words`, set in this process; the other words are left in `words`.
std::vector<std::string> take_variable_options(std::vector<std::string>& words) {
  std::vector<std::string> names;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] != k_variable_option) {
      rest.push_back(words[i]);
      continue;
    }
    if (i + 1 == words.size()) throw UserError("-x needs a value", "-x NAME=VALUE or -x NAME");
    const std::string& value = words[++i];
    auto equals = value.find('=');
    std::string name = value.substr(0, equals);
    if (!valid_env_name(name)) {
      throw UserError("-x '" + printable(value) + "' does not name a variable", "-x NAME=VALUE or -x NAME");
    }
    // `-x NAME` passes the value NAME has here.
    if (equals != std::string::npos) setenv(name.c_str(), value.c_str() + equals + 1, 1);
    names.push_back(name);
  }
  words = std::move(rest);
  return names;
}

// A duration option's text as seconds ("30m", "1h", "90s", "00:30:00"), or why it is not one; checked
// by CLI11 (exit 2) before the launch, so here it is well formed.
std::string duration_problem(const std::string& text) {
  std::string why;
  auto seconds = parse_walltime(text, &why);
  if (!seconds) return why + " (a duration such as 30m, 1h or 90s)";
  return *seconds > 0 ? std::string() : "must be more than 0";
}

// A whole number of seconds, as the Python ezpz's launch takes --timeout ("1800"); nullopt for other text.
std::optional<long> plain_seconds(const std::string& text) {
  bool digits = !text.empty() && text.size() <= 9 &&
                std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  return digits ? std::optional<long>(std::stol(text)) : std::nullopt;
}

// --timeout: a duration, or a whole number of seconds.
std::string timeout_problem(const std::string& text) {
  if (auto seconds = plain_seconds(text)) return *seconds > 0 ? std::string() : "must be more than 0";
  return duration_problem(text);
}

// --probe-timeout: a duration, or 0 (no probe).
std::string probe_timeout_problem(const std::string& text) {
  return is_zero_duration(text) ? std::string() : duration_problem(text);
}

// Seconds of a checked duration option (--timeout's plain seconds too); 0 when it is not given, or is a
// zero duration ("0", "0s").
long duration_seconds(const std::string& text) {
  std::string why;
  if (auto seconds = plain_seconds(text)) return *seconds;
  return text.empty() ? 0 : parse_walltime(text, &why).value_or(0);
}

// The end signal: --signal-before exports what asks every rank's `ezpz exec` for it (and the
// allocation's end, which it needs); without it a rendered script's hand-off may ask for it already.
void plan_end_signal(const LaunchOptions& options, Supervision& supervision) {
  if (long before = duration_seconds(options.signal_before); before > 0) {
    auto end = allocation_end(process_env());
    if (!end) {
      throw UserError("--signal-before needs to know when the allocation ends, and nothing says so",
                      "rendered scripts export EZPZ_JOB_END_TIME; elsewhere export it (seconds since the epoch), "
                      "e.g. EZPZ_JOB_END_TIME=$(( $(date +%s) + 3600 ))");
    }
    std::string signal = signal_name(*signal_number(options.signal, SignalUse::warning));
    for (const auto& [name, value] : end_signal_env(signal, before, *end)) setenv(name.c_str(), value.c_str(), 1);
  }
  if (auto end = end_signal(process_env())) supervision.end_signal_due = end->due;
}

// --max-restarts: a requeued job that has been restarted more often than its spec allows ends here.
void check_restarts(const LaunchOptions& options, const Installation& installation) {
  if (options.max_restarts < 0) return;
  const SystemProfile& profile = installation.catalog.system(runtime_system(installation, options.system));
  SystemProcessRunner runner;
  Restarts restarts = job_restarts(installation.catalog.scheduler(profile.scheduler), process_env(), runner);
  if (!restarts.count) {
    std::cerr << "ezpz launch: warning: cannot tell how often this job has been restarted (" << restarts.source
              << "); running it\n";
  } else if (*restarts.count > options.max_restarts) {
    throw UserError("this job has been restarted " + std::to_string(*restarts.count) + " times (" + restarts.source +
                        "), more than the " + std::to_string(options.max_restarts) +
                        " that supervise.requeue allows: not running it again",
                    "submit it again to start afresh");
  } else if (*restarts.count > 0) {
    std::cerr << "ezpz launch: restart " << *restarts.count << " of at most " << options.max_restarts << " ("
              << restarts.source << ")\n";
  }
}

// Launcher options on `local`, which has no launcher (-x is read before): an error rather than silently
// nothing.
void refuse_local_launcher_options(const std::vector<std::string>& words) {
  if (words.empty()) return;
  throw UserError("'" + printable(words.front()) +
                      "' is not an option of ezpz launch, and system 'local' has no launcher to pass it to",
                  "on 'local' ezpz launch starts the ranks itself and understands only '-x': -x NAME=VALUE or "
                  "-x NAME (as Open MPI's mpiexec: the variable reaches every rank)");
}

// Before each attempt: torchrun's restart counts for the ranks (runtime/torchrun_env.hpp).
void set_restart_variables(long attempt, long retries) {
  for (const auto& [name, value] : torchrun_restart_variables(attempt, retries)) setenv(name.c_str(), value.c_str(), 1);
}

// --spare-nodes: the failover loop over the launcher command, whose hosts it chooses at each attempt.
int launch_spare(const LaunchOptions& options, const Installation& installation, std::vector<std::string> command,
                 std::vector<std::pair<std::string, std::string>> plan_env, const Supervision& supervision,
                 const RetryPolicy& policy) {
  SpareNodeLaunch launch;
  launch.system = runtime_system(installation, options.system);
  launch.command = std::move(command);
  launch.env = std::move(plan_env);
  launch.hostfile = options.hostfile;
  launch.probe_timeout = duration_seconds(options.probe_timeout);
  launch.policy.spare_nodes = options.spare_nodes;
  launch.policy.active_nodes = options.verbatim ? 0 : options.nodes;
  launch.policy.retries = options.retries;
  launch.policy.delays = policy;
  launch.policy.startup_seconds = duration_seconds(options.startup);
  launch.policy.progress = options.progress;
  if (options.dry_run) {
    std::cout << command_text(launch.command) << "\n";
    return k_exit_ok;
  }
  return launch_with_spare_nodes(installation, launch, supervision);
}

// --verbatim: CMD is the whole launcher command already (a rendered script's); run it, supervised.
int launch_verbatim(const LaunchOptions& options, const std::vector<std::string>& command,
                    const Supervision& supervision, const RetryPolicy& policy) {
  std::cerr << "ezpz launch: " << command_text(command) << "\n";
  if (options.dry_run) {
    std::cout << command_text(command) << "\n";
    return k_exit_ok;
  }
  SupervisedProcess launcher = launcher_process(command);
  long attempt = 0;
  return run_attempts(
      [&] {
        set_restart_variables(attempt++, policy.retries);
        return supervise_processes({launcher}, supervision);
      },
      policy, process_env());
}

// `-m MODULE ARGS…` (read_command_words) as a command: the environment's Python runs the module, as the
// Python ezpz chooses it: $VIRTUAL_ENV/bin/python3 when there is one, else python3 on PATH.
std::vector<std::string> with_interpreter(std::vector<std::string> program) {
  if (program.empty() || program.front() != k_module_word) return program;
  if (program.size() == 1) throw UserError("-m needs a module", "ezpz launch -n 2 -m ezpz.examples.minimal");
  std::string python = "python3";
  if (auto venv = setting(process_env(), "VIRTUAL_ENV")) {
    std::string candidate = *venv + "/bin/python3";
    if (access(candidate.c_str(), X_OK) == 0) python = candidate;
  }
  program.insert(program.begin(), python);
  return program;
}

int launch(const LaunchOptions& options, const std::vector<std::string>& given) {
  std::vector<std::string> program = with_interpreter(given);
  if (program.empty()) throw UserError("no program to launch", "ezpz launch -n 4 -- python3 train.py");
  // The ranks are this launch's, not workers of a torchrun that started ezpz launch.
  for (const auto& name : torchrun_agent_variables()) unsetenv(name.c_str());
  set_restart_variables(0, options.retries);
  if (options.verbatim && !options.launcher_options.empty()) {
    throw UserError("options for the launcher (" + command_text(options.launcher_options) +
                        ") and --verbatim: the command is already the whole launcher command",
                    "put them into it");
  }
  Supervision supervision;
  supervision.idle_timeout_seconds = duration_seconds(options.timeout);
  plan_end_signal(options, supervision);
  Installation installation = Installation::from_process();
  check_restarts(options, installation);
  // Per-rank output: every rank's ezpz exec reads these (runtime/rank_output.hpp).
  if (options.label) setenv(k_env_label, "1", 1);
  if (!options.log_dir.empty()) {
    setenv(k_env_log_dir, std::filesystem::absolute(options.log_dir).lexically_normal().c_str(), 1);
  }
  RetryPolicy policy;
  policy.retries = options.retries;
  policy.first_delay = options.retry_delay;
  if (options.verbatim && options.spare_nodes > 0)
    return launch_spare(options, installation, program, {}, supervision, policy);
  if (options.verbatim) return launch_verbatim(options, program, supervision, policy);
  LaunchRequest request;
  request.system = runtime_system(installation, options.system);
  if (options.ranks > 0) request.ranks = options.ranks;
  if (options.ranks_per_node > 0) request.ranks_per_node = options.ranks_per_node;
  if (options.nodes > 0) request.nodes = options.nodes;
  request.hostfile = options.hostfile;
  request.cpu_bind = options.cpu_bind;
  request.program = program;
  request.launcher_options = options.launcher_options;
  request.forward_names = take_variable_options(request.launcher_options);
  request.spare_nodes = options.spare_nodes;
  request.choose_hosts = options.spare_nodes > 0;
  LaunchPlan plan = plan_launch(installation.catalog, request, process_env(), installation.ezpz_bin);
  if (plan.kind == LauncherKind::local) refuse_local_launcher_options(request.launcher_options);
  if (options.spare_nodes > 0) {
    if (plan.kind == LauncherKind::local) {
      throw UserError("--spare-nodes needs an allocation's nodes, and system '" + request.system +
                          "' runs its ranks on this machine",
                      "run inside a PBS or Slurm allocation with that system's profile");
    }
    return launch_spare(options, installation, plan.argv, plan.env, supervision, policy);
  }

  std::vector<std::string> shown = plan.argv;
  if (plan.kind == LauncherKind::local) {
    shown = {installation.ezpz_bin, "exec", "--"};
    shown.insert(shown.end(), program.begin(), program.end());
  }
  std::cerr << "ezpz launch: "
            << (plan.kind == LauncherKind::local ? std::to_string(plan.total_ranks) + " local rank(s) of " : "")
            << command_text(shown) << "\n";
  if (options.dry_run) {
    std::cout << command_text(shown) << "\n";
    return k_exit_ok;
  }
  long attempts = 0;
  auto attempt = [&]() -> LaunchOutcome {
    set_restart_variables(attempts++, policy.retries);
    if (plan.kind == LauncherKind::local)
      return run_local_ranks(plan, program, installation.ezpz_bin, request.system, supervision);
    // Watched: the launcher runs as a child whose output passes through ezpz, and ending it (TERM, then
    // KILL to its process group) ends the ranks it started, as mpiexec and srun stop their ranks.
    return supervise_processes({launcher_process(plan.argv, plan.env)}, supervision);
  };
  if (plan.kind == LauncherKind::local || supervision.idle_timeout_seconds > 0 || policy.retries > 0) {
    return run_attempts(attempt, policy, process_env());
  }

  for (const auto& [name, value] : plan.env) setenv(name.c_str(), value.c_str(), 1);
  return exec_program(plan.argv, "is the system's launcher on PATH (module loaded)?");
}

}  // namespace

void add_launch_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<LaunchOptions>();
  CLI::App* command = app.add_subcommand("launch", "Start every rank of CMD in this allocation, through ezpz exec");
  command->add_option("--system", options->system, "system profile (default: $EZPZ_SYSTEM, else detected)");
  for (const auto& count : k_count_options) {
    add_named_option(*command, count.names, (*options).*count.value, count.help)->check(CLI::Range(1L, 1000000L));
  }
  command->add_option("--hostfile", options->hostfile, "host file to use instead of the scheduler's");
  command->add_option("--cpu-bind", options->cpu_bind, "cpu binding (as the spec key cpu_bind: none, depth, list:…)");
  command
      ->add_option("--timeout", options->timeout,
                   "end the launch when no rank has written a byte for this long (seconds, as 1800, or 30m, 1h, "
                   "90s): TERM, then KILL, exit 124")
      ->check(CLI::Validator(timeout_problem, "SECONDS|DURATION"));
  command
      ->add_option("--retries", options->retries,
                   "run a failed launch again, up to N more times, in this allocation (not after Ctrl-C or a "
                   "signal, nor when the allocation would end first)")
      ->check(CLI::Range(0L, 1000L));
  command
      ->add_option("--retry-delay", options->retry_delay,
                   "seconds before the first retry; each later wait doubles, up to 300 (default 10)")
      ->check(CLI::Range(0.0, 3600.0));
  command
      ->add_option("--signal-before", options->signal_before,
                   "send every rank --signal this long before the allocation ends (needs EZPZ_JOB_END_TIME "
                   "or SLURM_JOB_END_TIME), so that it can checkpoint; no retry after it")
      ->check(CLI::Validator(duration_problem, "DURATION"));
  command
      ->add_option("--signal", options->signal,
                   "the signal --signal-before sends (default USR2): " + join(signal_names(SignalUse::warning), ", "))
      ->check(
          CLI::Validator([](const std::string& text) { return signal_problem(text, SignalUse::warning); }, "SIGNAL"));
  command
      ->add_option("--max-restarts", options->max_restarts,
                   "in a requeued job: run nothing (exit 1) once the scheduler has restarted the job more than N "
                   "times (supervise.requeue)")
      ->check(CLI::Range(0L, 1000L));
  command
      ->add_option("--spare-nodes", options->spare_nodes,
                   "keep K hosts of the allocation (those after the active ones) in reserve; after a failed attempt, "
                   "swap each node "
                   "that evidence proves bad (scheduler state, the profile's failure patterns, a health probe) "
                   "for a spare and run again (docs/failover.md)")
      ->check(CLI::Range(1L, 1000000L));
  command
      ->add_option("--progress", options->progress,
                   "with --spare-nodes: a regular expression; an attempt whose output matches it got past "
                   "start-up (default: one that lived --startup)")
      ->check(CLI::Validator([](const std::string& text) { return regex_problem(text); }, "REGEX"));
  command
      ->add_option("--startup", options->startup,
                   "with --spare-nodes: how long an attempt must live to count as past start-up (default 5m); "
                   "no further attempt starts with less time than this left in the allocation")
      ->check(CLI::Validator(duration_problem, "DURATION"));
  command
      ->add_option("--probe-timeout", options->probe_timeout,
                   "with --spare-nodes: time limit of the health probe of every node after a failed attempt "
                   "(default 1m; 0: no probe)")
      ->check(CLI::Validator(probe_timeout_problem, "DURATION"));
  command->add_flag("--label", options->label, "prefix each line of output with its rank: [rank 3] …");
  command->add_option("--log-dir", options->log_dir,
                      "write each rank's stdout and stderr to DIR/rank-N.log (appended); the console shows rank 0");
  command->add_flag("--verbatim", options->verbatim,
                    "CMD is the whole launcher command (mpiexec … ezpz exec -- …), as rendered scripts give it: "
                    "run it as it is, under the options above");
  command->add_flag("--dry-run", options->dry_run, "print the command on stdout and run nothing");
  command->footer(
      "Usage: ezpz launch [OPTIONS] [LAUNCHER OPTIONS --] CMD [ARGS...]\n"
      "CMD starts after '--', or else at the first word that is not an option of ezpz launch; every word\n"
      "after it is CMD's (ezpz launch -np 2 python3 train.py --lr 1). Options before '--' that are not\n"
      "ezpz launch's go to the launcher after its own (ezpz launch -np 2 -x NAME=VALUE -- python3 train.py);\n"
      "on system 'local', which has no launcher, -x NAME=VALUE or -x NAME gives every rank the variable.\n"
      "Hosts come from --hostfile, PBS_NODEFILE or SLURM_JOB_NODELIST. The command is printed to stderr.\n"
      "System 'local' runs the ranks itself (like torchrun --standalone): signals are forwarded, and when\n"
      "a rank fails the others are stopped and its exit code is returned.\n"
      "--timeout watches the output of every rank (through the launcher's on other systems): after that\n"
      "long without a byte, ezpz sends TERM to the whole launch, KILL 5 s later, and exits 124.\n"
      "USR1 and USR2 sent to ezpz launch are passed on to the ranks (through the launcher, which forwards them).\n"
      "Exit codes: the launch's own (the first failing rank's), 124 for --timeout, 128+N after signal N,\n"
      "1 for an ezpz error, 2 for bad options, 3 when the system refused its set-up (pipes, fork), as\n"
      "ezpz exec's. See docs/runtime-env.md.\n"
      "--spare-nodes K: keeps K hosts in reserve and swaps a node for a spare only on evidence; each\n"
      "decision is printed and recorded with the job (ezpz status --json). See docs/failover.md.");
  command->callback([&action, options] {
    options->launcher_options = options_passed_on();
    auto program = program_after_separator();
    action = [options, program] { return launch(*options, program); };
  });
}

}  // namespace ezpz::core
