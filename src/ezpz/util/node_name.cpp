// Host and node names.
#include "ezpz/util/node_name.hpp"
#include "ezpz/util/handoff_variables.hpp"

#include <unistd.h>

namespace ezpz::core {

std::string host_name() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return host;
}

std::string node_name(const EnvLookup& env) {
  for (const char* variable : {k_env_node_name, "SLURMD_NODENAME"}) {
    if (auto value = setting(env, variable)) return *value;
  }
  std::string host = host_name();
  return host.empty() ? "localhost" : host;
}

}  // namespace ezpz::core
