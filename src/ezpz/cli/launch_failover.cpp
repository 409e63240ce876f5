// Wiring the failover loop to the allocation: attempts through the launcher, the scheduler's node
// states, the health probe, signals between attempts, and the record.
#include "ezpz/cli/launch_failover.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "ezpz/runtime/allocation.hpp"
#include "ezpz/runtime/health_probe.hpp"
#include "ezpz/runtime/node_state.hpp"
#include "ezpz/submit/job_record.hpp"
#include "ezpz/submit/process.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/hostlist.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace fs = std::filesystem;
namespace {

// How long the scheduler may take to say how the nodes are.
constexpr std::chrono::seconds k_node_state_timeout{30};

// A private directory for the host files of the attempts, removed at the end.
class HostFiles {
 public:
  HostFiles() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ezpz-hosts-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      throw SystemError("cannot make a directory for host files: " + pattern + ": " + std::strerror(errno),
                        "set TMPDIR to a writable directory");
    }
    m_dir = pattern;
  }
  ~HostFiles() {
    std::error_code error;
    fs::remove_all(m_dir, error);
  }
  HostFiles(const HostFiles&) = delete;
  HostFiles& operator=(const HostFiles&) = delete;

  // A new file that lists `hosts`, one per line.
  std::string write(const std::vector<std::string>& hosts) {
    std::string path = m_dir + "/hosts-" + std::to_string(++m_count);
    write_file_atomically(path, join(hosts, "\n") + "\n");
    return path;
  }

 private:
  std::string m_dir;
  long m_count = 0;
};

// Outside an attempt, the signals that stop ezpz launch wait to be taken (wait()) instead of ending it
// with its host files and the probe's processes left behind. During an attempt the supervisor takes
// them (supervise_processes), and its children must start with this process's own mask.
class SignalGate {
 public:
  SignalGate() {
    sigemptyset(&m_set);
    for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&m_set, signal);
    sigprocmask(SIG_BLOCK, &m_set, &m_previous);
  }
  ~SignalGate() { sigprocmask(SIG_SETMASK, &m_previous, nullptr); }
  SignalGate(const SignalGate&) = delete;
  SignalGate& operator=(const SignalGate&) = delete;

  // Runs `attempt` with the mask ezpz launch had before (a signal that came just now is taken first
  // by wait(), which the loop calls before every attempt but the first).
  template <class Attempt>
  auto open_for(Attempt&& attempt) {
    sigprocmask(SIG_SETMASK, &m_previous, nullptr);
    auto outcome = attempt();
    sigprocmask(SIG_BLOCK, &m_set, nullptr);
    return outcome;
  }

  // Waits up to `seconds` for one of the signals; returns it if one came.
  std::optional<int> wait(double seconds) {
    timespec limit{static_cast<time_t>(seconds), static_cast<long>((seconds - std::floor(seconds)) * 1e9)};
    for (;;) {
      int signal = sigtimedwait(&m_set, nullptr, &limit);
      if (signal > 0) return signal;
      if (errno != EINTR) return std::nullopt;  // EAGAIN: the time is up
    }
  }

 private:
  sigset_t m_set;
  sigset_t m_previous;
};

// Where decisions go: the job's record directory, when there is a job and a records directory.
std::string decisions_dir(const std::string& job_id) {
  if (job_id.empty()) return "";
  try {
    return record_dir(records_root(""), job_id);
  } catch (const UserError& error) {
    std::cerr << "ezpz launch: warning: failover decisions are not recorded: " << error.what() << "\n";
    return "";
  }
}

}  // namespace

int launch_with_spare_nodes(const Installation& installation, const SpareNodeLaunch& launch,
                            const Supervision& supervision) {
  bool host_file = names(launch.command, k_hostfile_key);
  if (!host_file && !names(launch.command, k_hosts_key)) {
    throw UserError("spare nodes need a launcher command that names its hosts with {hostfile} or {hosts}, and '" +
                        command_text(launch.command) + "' names neither",
                    "render the job with supervise.spare_nodes, or run ezpz launch --spare-nodes without --verbatim");
  }
  Allocation allocation = current_allocation(process_env(), launch.hostfile, installation.catalog.job_variables());
  if (allocation.hosts.empty()) {
    throw UserError(
        "spare nodes need the allocation's hosts, and nothing names them here",
        "run inside the job (" + host_variable_names(installation.catalog.job_variables()) + "), or pass --hostfile");
  }
  const SystemProfile& profile = installation.catalog.system(launch.system);
  const Scheduler& scheduler = installation.catalog.scheduler(profile.scheduler);
  NodeNames names(allocation.hosts, profile.failover);
  // The probe's command for `count` nodes. Planned once now: a profile that cannot run it fails
  // before the first attempt, not in the middle of the loop.
  auto probe_command = [&](size_t count) {
    LaunchRequest request;
    request.system = launch.system;
    request.nodes = static_cast<long>(count);
    request.hostfile = launch.hostfile;
    request.per_node = true;
    request.choose_hosts = true;
    request.program = {installation.ezpz_bin, "probe"};
    return plan_launch(installation.catalog, request, process_env(), installation.ezpz_bin).argv;
  };
  if (launch.probe_timeout > 0) probe_command(allocation.hosts.size());
  HostFiles files;
  SignalGate gate;
  std::string record = decisions_dir(allocation.job_id);
  bool recording = !record.empty();
  if (recording) std::cerr << "ezpz launch: failover: decisions recorded in " << decisions_path(record) << "\n";

  FailoverHooks hooks;
  hooks.now = [] { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); };
  hooks.wait = [&](double seconds) { return gate.wait(seconds); };
  hooks.record = [&](const FailoverDecision& decision) {
    std::cerr << "ezpz launch: failover: " << decision.text() << "\n";
    if (!recording) return;
    try {
      append_decision(record, decision.to_json());
    } catch (const UserError& error) {
      std::cerr << "ezpz launch: warning: " << error.what() << "; later decisions are not recorded\n";
      recording = false;
    }
  };
  hooks.attempt = [&](const std::vector<std::string>& hosts, const Supervision& watched) {
    // The host file lists the hosts in host-list order, so that its first line, where the launcher
    // starts rank 0, is the first host of EZPZ_HOSTS, which every rank takes for MASTER_ADDR. srun
    // ({hosts}) orders its step itself, and the ranks read SLURM_STEP_NODELIST.
    std::string list = compress_hostlist(hosts);
    std::vector<std::string> ordered = expand_hostlist(list, "the attempt's hosts");
    std::vector<std::string> argv = with_hosts(launch.command, list, files.write(ordered));
    std::cerr << "ezpz launch: " << command_text(argv) << "\n";
    auto set = launch.env;
    if (host_file) set.emplace_back(k_env_hosts, list);
    return gate.open_for([&] { return supervise_processes({launcher_process(argv, set)}, watched); });
  };
  hooks.node_state = [&](const std::vector<std::string>& hosts, std::string& note) {
    SystemProcessRunner runner(k_node_state_timeout);
    return node_state_evidence(scheduler, hosts, allocation.job_id, names, runner, note);
  };
  if (launch.probe_timeout > 0) {
    hooks.probe = [&](const std::vector<std::string>& hosts, std::string& note) {
      std::vector<std::string> argv =
          with_hosts(probe_command(hosts.size()), compress_hostlist(hosts), files.write(hosts));
      SystemProcessRunner runner(std::chrono::seconds(launch.probe_timeout));
      ProcessResult result = runner.run(argv);
      std::string ended = result.timed_out ? "no answer within " + std::to_string(launch.probe_timeout) + " s"
                                           : "the probe ended with exit code " + std::to_string(result.exit_code);
      return probe_evidence(hosts, result.out, ended, names, note);
    };
  }
  FailoverResult result = run_failover(allocation.hosts, names, profile.failover, launch.policy, supervision, hooks,
                                       allocation_end(process_env()));
  return result.code;
}

}  // namespace ezpz::core
