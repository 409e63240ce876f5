// The only translation unit of ezpz_torch that sees the TCPStore and process-group implementations.
#include "ezpz/torch/torch.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>
#include <torch/version.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#ifdef USE_C10D_MPI
#include <torch/csrc/distributed/c10d/ProcessGroupMPI.hpp>
#endif

#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/rank_variables.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::torch {
namespace {

using Clock = std::chrono::steady_clock;
using core::join;

// c10::Error's what() carries a C++ backtrace; users need only the message.
std::string message_of(const std::exception& error) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&error)) return c10_error->what_without_backtrace();
  return error.what();
}

// c10d reports a store timeout as a c10::Error (1.13) or c10::DistStoreError (2.x) saying "Timeout"/"timed out".
bool is_timeout(const std::exception& error) {
  const std::string text = message_of(error);
  return text.find("imeout") != std::string::npos || text.find("timed out") != std::string::npos;
}

// Runs `step`; any exception becomes a std::runtime_error that starts with `context` and ends with `hint`.
template <typename Step>
auto with_context(const std::string& context, const std::string& hint, Step&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const std::exception& error) {
    std::string text = "ezpz torch: " + context + ": " + message_of(error);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    if (!hint.empty()) text += "\n  hint: " + hint;
    throw std::runtime_error(text);
  }
}

std::string seconds_text(std::chrono::milliseconds timeout) {
  std::ostringstream out;
  out << static_cast<double>(timeout.count()) / 1000.0 << " s";
  return out.str();
}

// The environment given in InitOptions, checked by the same code as the process environment.
Environment check_given(const Environment& given) {
  RankInfo identity;
  identity.rank = given.rank;
  identity.world_size = given.world_size;
  identity.local_rank = given.local_rank;
  identity.local_world_size = given.local_world_size;
  identity.node_rank = given.node_rank.value_or(0);
  const auto identity_variables = core::rank_variables(identity);
  const EnvLookup lookup = [&](const std::string& name) -> std::optional<std::string> {
    for (const auto& [variable, value] : identity_variables) {
      if (variable == name && (name != "NODE_RANK" || given.node_rank)) return value;
    }
    if (name == "MASTER_ADDR") return given.master_addr;
    if (name == "MASTER_PORT") return std::to_string(given.master_port);
    if (name == "TORCH_DEVICE") return given.device;
    if (name == "TORCH_BACKEND" && !given.backend_defaulted) return given.backend;
    if (name == core::k_env_node_name) return given.node_name;
    if (name == "TORCHELASTIC_USE_AGENT_STORE" && given.agent_store) return std::string("True");
    if (name == "TORCHELASTIC_RESTART_COUNT") return std::to_string(given.restart_count);
    return std::nullopt;
  };
  return read_environment(lookup);
}

// TORCH_DEVICE as a c10::Device this build can use; problems are added to `problems`.
c10::Device check_device(const Environment& env, std::vector<std::string>& problems) {
  c10::Device device(c10::kCPU);
  try {
    device = c10::Device(env.device);
  } catch (const std::exception&) {
    problems.push_back("TORCH_DEVICE='" + env.device +
                       "' is not a device LibTorch knows; expected 'cpu', or a type and index such as 'cuda:0' "
                       "or 'xpu:0'");
    return device;
  }
  if (device.is_cpu()) return device;
  const std::string type = c10::DeviceTypeName(device.type(), /*lower_case=*/true);
  if (!c10::impl::hasDeviceGuardImpl(device.type())) {
    problems.push_back("TORCH_DEVICE='" + env.device + "': this LibTorch build (" + libtorch_version() + ") has no " +
                       type + " support; expected 'cpu' (with TORCH_BACKEND=gloo), or a LibTorch built for " + type);
    return device;
  }
  const auto count = c10::impl::getDeviceGuardImpl(device.type())->deviceCount();
  if (count == 0) {
    problems.push_back("TORCH_DEVICE='" + env.device + "': no " + type +
                       " device is visible to this rank; check the device visibility variable (e.g. "
                       "CUDA_VISIBLE_DEVICES, ZE_AFFINITY_MASK) or use 'cpu'");
  } else if (device.has_index() && device.index() >= count) {
    problems.push_back("TORCH_DEVICE='" + env.device + "': only " + std::to_string(count) + " " + type +
                       " device(s) are visible to this rank; expected an index 0 ... " + std::to_string(count - 1));
  }
  return device;
}

void check_backend(const Environment& env, const c10::Device& device, std::vector<std::string>& problems) {
  const auto available = available_backends();
  if (std::find(available.begin(), available.end(), env.backend) == available.end()) {
    const std::string source = env.backend_defaulted ? "TORCH_BACKEND is not set, and the default for TORCH_DEVICE='" +
                                                           env.device + "' is '" + env.backend + "'"
                                                     : "TORCH_BACKEND='" + env.backend + "'";
    problems.push_back(source + ": this LibTorch build (" + libtorch_version() + ") has no " + env.backend +
                       " process group; expected " + join(available, " or ") +
                       (env.backend == "xccl" || env.backend == "nccl"
                            ? ", or a LibTorch built with " + env.backend
                            : std::string(env.backend == "mpi" ? ", or a LibTorch built with MPI" : "")));
    return;
  }
  if (env.backend == "gloo" && !device.is_cpu() && !device.is_cuda()) {
    problems.push_back("TORCH_BACKEND=gloo cannot reduce tensors on TORCH_DEVICE='" + env.device +
                       "'; expected TORCH_DEVICE=cpu or cuda:N with gloo");
  }
}

// c10d's TCPStore client (1.13) sleeps a whole second after a refused connection before it tries
// again. Ranks start within milliseconds of each other, and rank 0, which hosts the store, is often
// a little later than the others: without this, such a race costs every rank a second of init time.
// Waits (retrying every few milliseconds) until host:port accepts a connection; false at the deadline.
bool wait_for_listener(const std::string& host, std::uint16_t port, Clock::time_point deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  auto delay = std::chrono::milliseconds(1);
  while (true) {
    addrinfo* results = nullptr;
    bool connected = false;
    if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &results) == 0) {
      for (const addrinfo* ai = results; ai && !connected; ai = ai->ai_next) {
        const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        int status = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (status != 0 && errno == EINPROGRESS) {
          // An unreachable host does not refuse: wait for the handshake, at most until the deadline.
          const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
          pollfd pending{fd, POLLOUT, 0};
          int error = 0;
          socklen_t length = sizeof error;
          status = ::poll(&pending, 1, static_cast<int>(std::clamp<long long>(left, 0, 1000))) == 1 &&
                           ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0
                       ? 0
                       : -1;
        }
        ::close(fd);
        connected = status == 0;
      }
      freeaddrinfo(results);
    }
    if (connected) return true;
    if (Clock::now() + delay >= deadline) return false;
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(50));
  }
}

// Every rank announces itself and waits until all WORLD_SIZE ranks have: a timeout names the ranks
// that never came (the process-group constructors only report "Socket Timeout"), and a second
// process with the same RANK is refused.
void join_rendezvous(c10d::Store& store, const Environment& env, std::chrono::milliseconds timeout,
                     const std::string& where) {
  const std::string ready = "ezpz/init/ready";
  const bool duplicate = with_context(where, "", [&] {
    if (store.add("ezpz/init/rank/" + std::to_string(env.rank), 1) > 1) return true;
    if (store.add("ezpz/init/joined", 1) == env.world_size) store.set(ready, {1});
    return false;
  });
  if (duplicate) {
    throw std::runtime_error("ezpz torch: " + where +
                             ": another process already joined as RANK=" + std::to_string(env.rank) +
                             "\n  hint: every rank needs its own RANK; does the launcher set the variables ezpz "
                             "exec reads (or RANK itself) for each process?");
  }
  try {
    store.wait({ready}, timeout);
    return;
  } catch (const std::exception& error) {
    if (!is_timeout(error)) {
      throw std::runtime_error("ezpz torch: " + where + ": " + message_of(error));
    }
  }
  std::vector<std::string> missing;
  int joined = -1;
  try {
    joined = static_cast<int>(store.add("ezpz/init/joined", 0));
    for (int r = 0; r < env.world_size && missing.size() < 20; ++r) {
      if (!store.check({"ezpz/init/rank/" + std::to_string(r)})) missing.push_back(std::to_string(r));
    }
  } catch (const std::exception&) {
    // The store itself went away (rank 0 gave up first): say what we know.
  }
  std::string text = "ezpz torch: " + where + ": waited " + seconds_text(timeout) + " for all " +
                     std::to_string(env.world_size) + " ranks to join";
  if (joined >= 0) text += ", " + std::to_string(joined) + " joined";
  if (!missing.empty()) {
    text += "; missing: rank" + std::string(missing.size() > 1 ? "s " : " ") + join(missing, ", ");
    if (missing.size() == 20) text += " ...";
  }
  throw std::runtime_error(text +
                           "\n  hint: did every rank start, with the same WORLD_SIZE, MASTER_ADDR and "
                           "MASTER_PORT? a larger timeout helps when ranks start slowly");
}

#ifdef USE_C10D_GLOO
// The local address this host uses to reach `host` (no packet is sent: connect() on a UDP socket only
// picks the route). Empty when the host does not resolve or no route exists.
std::string local_address_towards(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* results = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &results) != 0) return {};
  std::string address;
  for (const addrinfo* ai = results; ai && address.empty(); ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
      char text[INET6_ADDRSTRLEN] = {};
      const void* raw = local.ss_family == AF_INET6
                            ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(&local)->sin6_addr)
                            : static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(&local)->sin_addr);
      if (inet_ntop(local.ss_family, raw, text, sizeof text)) address = text;
    }
    ::close(fd);
  }
  freeaddrinfo(results);
  return address;
}

bool is_loopback(const std::string& address) {
  return core::starts_with(address, "127.") || address == "::1";
}

// A job across nodes cannot use an address only this node can reach. MASTER_ADDR that leads to the
// loopback interface (127.0.0.1, or a host name that /etc/hosts maps to 127.0.1.1) would make Gloo
// listen there, and the ranks would time out later with "Socket Timeout"; say so before anything
// waits.
void check_gloo_address(const Environment& env) {
  const char* interfaces = std::getenv("GLOO_SOCKET_IFNAME");
  if ((interfaces && *interfaces) || env.world_size == env.local_world_size) return;
  const std::string address = local_address_towards(env.master_addr, env.master_port);
  if (!is_loopback(address)) return;
  throw std::runtime_error(
      "ezpz torch: rank " + std::to_string(env.rank) + " on " + env.node_name + ": MASTER_ADDR=" + env.master_addr +
      " leads to the loopback address " + address + " here, but the job spans several nodes (WORLD_SIZE=" +
      std::to_string(env.world_size) + ", LOCAL_WORLD_SIZE=" + std::to_string(env.local_world_size) +
      "): ranks on other nodes could not reach gloo on this one\n  hint: set MASTER_ADDR to a name or address of "
      "rank 0's node that the other nodes reach (not a loopback alias), or GLOO_SOCKET_IFNAME to the network "
      "interface gloo should use");
}

std::vector<std::shared_ptr<::gloo::transport::Device>> gloo_devices(const Environment& env) {
  std::vector<std::shared_ptr<::gloo::transport::Device>> devices;
  const char* interfaces = std::getenv("GLOO_SOCKET_IFNAME");
  if (interfaces && *interfaces) {
    std::stringstream list(interfaces);
    for (std::string name; std::getline(list, name, ',');) {
      if (name.empty()) continue;
      devices.push_back(with_context("GLOO_SOCKET_IFNAME='" + std::string(interfaces) + "': interface '" + name + "'",
                                     "list network interfaces of this node (ip -brief address), or unset it",
                                     [&] { return c10d::ProcessGroupGloo::createDeviceForInterface(name); }));
    }
    return devices;
  }
  const std::string address = local_address_towards(env.master_addr, env.master_port);
  if (!address.empty()) {
    devices.push_back(with_context(
        "binding gloo to " + address + " (this node's address towards MASTER_ADDR=" + env.master_addr + ")",
        "set GLOO_SOCKET_IFNAME to the network interface to use",
        [&] { return c10d::ProcessGroupGloo::createDeviceForHostname(address); }));
  } else {
    devices.push_back(with_context("creating gloo's default device (MASTER_ADDR=" + env.master_addr +
                                       " does not resolve to a reachable address here)",
                                   "check MASTER_ADDR, or set GLOO_SOCKET_IFNAME",
                                   [] { return c10d::ProcessGroupGloo::createDefaultDevice(); }));
  }
  return devices;
}
#endif

c10::intrusive_ptr<c10d::ProcessGroup> make_process_group(const Environment& env,
                                                          const c10::intrusive_ptr<c10d::Store>& store,
                                                          std::chrono::milliseconds timeout) {
  const auto pg_store = c10::make_intrusive<c10d::PrefixStore>("ezpz/pg", store);
  const std::string where = "rank " + std::to_string(env.rank) + " on " + env.node_name + ": creating the " +
                            env.backend + " process group of " + std::to_string(env.world_size) + " ranks";
  // All ranks have joined the store by now: what fails here is the connection between them.
  const std::string hint = "all ranks joined the rendezvous, but could not connect to each other within " +
                           seconds_text(timeout) + "; check that the nodes reach each other (firewalls, interfaces)";
#ifdef USE_C10D_GLOO
  if (env.backend == "gloo") {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    options->devices = gloo_devices(env);
    std::vector<std::string> addresses;
    for (const auto& device : options->devices) addresses.push_back(device->str());
    return with_context(where, hint + "; gloo uses " + join(addresses, ", ") + " here (GLOO_SOCKET_IFNAME chooses)",
                        [&]() -> c10::intrusive_ptr<c10d::ProcessGroup> {
                          return c10::make_intrusive<c10d::ProcessGroupGloo>(pg_store, env.rank, env.world_size,
                                                                             options);
                        });
  }
#endif
#ifdef USE_C10D_NCCL
  if (env.backend == "nccl") {
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    return with_context(where, hint, [&]() -> c10::intrusive_ptr<c10d::ProcessGroup> {
      return c10::make_intrusive<c10d::ProcessGroupNCCL>(pg_store, env.rank, env.world_size, options);
    });
  }
#endif
#ifdef USE_C10D_MPI
  if (env.backend == "mpi") {
    auto pg = with_context(where, "start the ranks with mpiexec/srun so MPI knows them", [] {
      return c10::intrusive_ptr<c10d::ProcessGroup>(c10d::ProcessGroupMPI::createProcessGroupMPI());
    });
    if (pg->getRank() != env.rank || pg->getSize() != env.world_size) {
      throw std::runtime_error("ezpz torch: MPI numbers this process rank " + std::to_string(pg->getRank()) + " of " +
                               std::to_string(pg->getSize()) + ", but RANK=" + std::to_string(env.rank) +
                               " and WORLD_SIZE=" + std::to_string(env.world_size) +
                               "; expected the same numbering (start the ranks with mpiexec, under ezpz exec)");
    }
    return pg;
  }
#endif
  // check_backend() let only available backends through.
  throw std::logic_error("ezpz torch: backend '" + env.backend + "' passed the checks but is not built in");
}

}  // namespace

std::string libtorch_version() {
  return std::string("LibTorch ") + TORCH_VERSION;
}

std::vector<std::string> available_backends() {
  std::vector<std::string> names;
#ifdef USE_C10D_GLOO
  names.push_back("gloo");
#endif
#ifdef USE_C10D_NCCL
  names.push_back("nccl");
#endif
#ifdef USE_C10D_MPI
  names.push_back("mpi");
#endif
  return names;
}

Context init(const InitOptions& options) {
  const auto start = Clock::now();
  const Environment env = options.environment ? check_given(*options.environment) : read_environment();

  std::vector<std::string> problems;
  const c10::Device device = check_device(env, problems);
  check_backend(env, device, problems);
  if (!problems.empty()) {
    throw EnvironmentError(problems,
                           "set TORCH_DEVICE and TORCH_BACKEND to a pair this LibTorch build supports "
                           "(cpu with gloo always works)");
  }
#ifdef USE_C10D_GLOO
  if (env.backend == "gloo") check_gloo_address(env);
#endif
  if (!device.is_cpu() && device.has_index()) {
    with_context("selecting TORCH_DEVICE='" + env.device + "'", "",
                 [&] { c10::impl::getDeviceGuardImpl(device.type())->setDevice(device); });
  }

  const std::string endpoint = "MASTER_ADDR=" + env.master_addr + " MASTER_PORT=" + std::to_string(env.master_port);
  const std::string who = "rank " + std::to_string(env.rank) + " on " + env.node_name;
  // Rank 0 hosts the store, except under torchrun's static rendezvous, whose agent already does.
  const bool host = env.rank == 0 && !env.agent_store;
  c10d::TCPStoreOptions store_options;
  store_options.port = env.master_port;
  store_options.isServer = host;
  store_options.numWorkers = static_cast<std::size_t>(env.world_size);
  store_options.waitWorkers = false;  // join_rendezvous() waits, and says who is missing
  store_options.timeout = options.timeout;
  const std::string store_what = host ? who + ": hosting the rendezvous store (" + endpoint + ")"
                                      : who + ": joining the rendezvous store (" + endpoint + ")" +
                                            (env.agent_store ? " of the torchrun agent" : "");
  const std::string store_hint =
      host              ? "is MASTER_PORT already in use on this node? choose another one"
      : env.agent_store ? "is the torchrun agent still running?"
                        : "is rank 0 running on MASTER_ADDR, reachable from this node, and using the same MASTER_PORT?";
  if (!host && !wait_for_listener(env.master_addr, env.master_port, start + options.timeout)) {
    throw std::runtime_error("ezpz torch: " + store_what + ": nothing accepted connections there within " +
                             seconds_text(options.timeout) + "\n  hint: " + store_hint);
  }
  auto store = with_context(store_what, store_hint, [&]() -> c10::intrusive_ptr<c10d::Store> {
    return c10::make_intrusive<c10d::TCPStore>(env.master_addr, store_options);
  });
  if (env.agent_store) {
    // The agent's store outlives restarts: each attempt gets its own keys (as PyTorch does).
    store = c10::make_intrusive<c10d::PrefixStore>("/worker/attempt_" + std::to_string(env.restart_count), store);
  }
  join_rendezvous(*store, env, options.timeout, who + ": rendezvous at " + endpoint);

  Context context;
  context.process_group = make_process_group(env, store, options.timeout);
  context.store = store;
  context.rank = env.rank;
  context.world_size = env.world_size;
  context.local_rank = env.local_rank;
  context.local_world_size = env.local_world_size;
  context.node_rank = env.node_rank;
  context.device = device;
  context.backend = env.backend;
  context.node_name = env.node_name;
  context.master_addr = env.master_addr;
  context.master_port = env.master_port;
  context.timeout = options.timeout;
  context.init_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return context;
}

void finalize(Context& context, bool barrier) {
  // Locals: both are released when this function returns or throws, the process group first.
  const auto store = std::move(context.store);
  const auto process_group = std::move(context.process_group);
  context.store.reset();
  context.process_group.reset();
  if (!process_group || !barrier) return;
  with_context("rank " + std::to_string(context.rank) + ": the final barrier", "did another rank fail or exit early?",
               [&] { process_group->barrier()->wait(); });
}

}  // namespace ezpz::torch
