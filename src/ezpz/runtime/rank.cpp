// Rank discovery from a table of launcher variables.
#include "ezpz/runtime/rank.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// Launchers whose variables describe one process together: every MPI launcher's, a Slurm step's, or
// torchrun's. Only variables of one family are compared with each other.
enum class Family { mpi, slurm, torchrun };

// One launcher's names for the five values ("" where it sets none).
struct RankVariables {
  const char* launcher;
  Family family;
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* local_size;
  const char* node_rank;
};

// Innermost first. Sources: PALS and PMI on Aurora/Polaris (ALCF docs); Open MPI's OMPI_COMM_WORLD_*;
// MPICH Hydra's PMI_RANK/PMI_SIZE with MPI_LOCALRANKID/MPI_LOCALNRANKS; Slurm srun's SLURM_PROCID,
// SLURM_NTASKS, SLURM_LOCALID (not SLURM_LOCAL_ID, which does not exist), SLURM_NODEID; torchrun.
const RankVariables k_rank_variables[] = {
    {"PALS", Family::mpi, "PALS_RANKID", "PMI_SIZE", "PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE", "PALS_NODEID"},
    // OMPI_COMM_WORLD_NODE_RANK is a rank on the node across jobs, not the node's index: not used.
    {"Open MPI", Family::mpi, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE", ""},
    {"PMI", Family::mpi, "PMI_RANK", "PMI_SIZE", "PMI_LOCAL_RANK", "PMI_LOCAL_SIZE", ""},
    {"MPICH", Family::mpi, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", ""},
    {"PMIx", Family::mpi, "PMIX_RANK", "", "", "", ""},
    {"Slurm", Family::slurm, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "", "SLURM_NODEID"},
    {"torchrun", Family::torchrun, "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK"},
};

enum Quantity { k_rank, k_size, k_local_rank, k_local_size, k_node_rank, k_quantities };
const char* const k_quantity_names[k_quantities] = {"rank", "world size", "local rank", "local world size",
                                                    "node rank"};

const char* name_of(const RankVariables& source, int quantity) {
  const char* names[k_quantities] = {source.rank, source.size, source.local_rank, source.local_size, source.node_rank};
  return names[quantity];
}

struct Value {
  long number;
  std::string variable;
  std::string text;
};

std::optional<Value> read(const EnvLookup& env, const char* variable) {
  if (*variable == '\0') return std::nullopt;
  auto text = env(variable);
  if (!text) return std::nullopt;
  std::string digits = trim(*text);
  bool number = !digits.empty() && std::all_of(digits.begin(), digits.end(), ::isdigit);
  if (!number || digits.size() > 9) {
    throw UserError(
        std::string(variable) + "=" + quoted_cut(*text, 40) + " " + (number ? "is over 999999999" : "is not a number"),
        "check how the job's launcher was started");
  }
  return Value{std::stol(digits), variable, *text};
}

// Slurm's job-level variables are inherited by everything inside an allocation; they describe this
// process only inside an srun step, where SLURM_STEP_ID is set and not "batch"/"extern".
bool slurm_step(const EnvLookup& env) {
  auto step = env("SLURM_STEP_ID");
  return step && !step->empty() && *step != "batch" && *step != "extern" && env("SLURM_PROCID").has_value();
}

// Tasks on node `node` from Slurm's per-node task counts, "8(x2),4" = 8, 8, 4 (sbatch(1), srun(1)).
std::optional<Value> slurm_tasks_on_node(const EnvLookup& env, long node) {
  auto digits = [](const std::string& text) {
    return !text.empty() && text.size() < 10 && std::all_of(text.begin(), text.end(), ::isdigit);
  };
  for (const char* variable : {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"}) {
    auto text = env(variable);
    if (!text || text->empty()) continue;
    long index = 0;
    for (const auto& part : split(*text, ',')) {
      auto paren = part.find("(x");
      std::string tasks = part.substr(0, paren);
      std::string repeat = paren == std::string::npos ? "1" : part.substr(paren + 2);
      bool closed = paren == std::string::npos || (!repeat.empty() && repeat.back() == ')');
      if (closed && paren != std::string::npos) repeat.pop_back();
      if (!closed || !digits(tasks) || !digits(repeat)) {
        throw UserError(std::string(variable) + "='" + *text + "' is not a list of task counts like '8(x2),4'");
      }
      if (node < index + std::stol(repeat)) return Value{std::stol(tasks), variable, *text};
      index += std::stol(repeat);
    }
  }
  return std::nullopt;
}

// srun's own MPI plugins (--mpi=pmi2 or pmix, or slurm.conf's MpiDefault) give a step's tasks PMI_RANK and
// PMI_SIZE, or PMIX_RANK, but no local rank. Such a task is described by its Slurm step: its MPI rank
// and size are the step's SLURM_PROCID and SLURM_NTASKS, and no MPI launcher set a local rank. An mpiexec
// started inside a step (its ranks have MPI_LOCALRANKID or a world of their own) is not such a task.
bool srun_mpi_plugin_task(const EnvLookup& env) {
  if (!slurm_step(env)) return false;
  std::optional<Value> rank, size;
  for (const auto& source : k_rank_variables) {
    if (source.family != Family::mpi) continue;
    if (read(env, source.local_rank)) return false;
    if (!rank) rank = read(env, source.rank);
    if (!size) size = read(env, source.size);
  }
  auto procid = read(env, "SLURM_PROCID");
  auto ntasks = read(env, "SLURM_NTASKS");
  return rank && procid && rank->number == procid->number && (!size || !ntasks || size->number == ntasks->number);
}

}  // namespace

std::vector<std::string> launcher_rank_variables() {
  std::vector<std::string> names = {"SLURM_STEP_ID", "SLURM_STEP_TASKS_PER_NODE"};
  for (const auto& source : k_rank_variables) {
    for (int quantity = 0; quantity < k_quantities; ++quantity) {
      std::string name = name_of(source, quantity);
      if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

namespace {

using Values = std::array<std::optional<Value>, k_quantities>;

// The innermost family that set a rank variable describes this process.
std::optional<Family> rank_family(const EnvLookup& env) {
  std::optional<Family> found;
  for (const auto& source : k_rank_variables) {
    if (source.family == Family::slurm && !slurm_step(env)) continue;
    if (env(source.rank)) {
      found = source.family;
      break;
    }
  }
  if (found == Family::mpi && srun_mpi_plugin_task(env)) found = Family::slurm;
  return found;
}

// Every quantity the family's variables give; throws when two of its variables disagree.
Values family_values(const EnvLookup& env, Family family) {
  Values values;
  for (const auto& source : k_rank_variables) {
    if (source.family != family) continue;
    for (int quantity = 0; quantity < k_quantities; ++quantity) {
      auto value = read(env, name_of(source, quantity));
      if (!value) continue;
      if (!values[quantity]) {
        values[quantity] = value;
      } else if (values[quantity]->number != value->number) {
        throw UserError(std::string("launcher variables disagree on the ") + k_quantity_names[quantity] + ": " +
                            values[quantity]->variable + "=" + values[quantity]->text + " but " + value->variable +
                            "=" + value->text,
                        "the job's environment mixes two launchers; start ranks with one of them");
      }
    }
  }
  if (family == Family::slurm && !values[k_local_size] && values[k_node_rank]) {
    values[k_local_size] = slurm_tasks_on_node(env, values[k_node_rank]->number);
  }
  return values;
}

// Named after the rows that gave this process its identity: "PMI, MPICH" for MPICH Hydra (PMI_RANK
// with MPI_LOCALRANKID), "PALS" on Aurora.
std::string launcher_name(Family family, const Values& values) {
  std::vector<std::string> launchers;
  for (int quantity : {k_rank, k_local_rank}) {
    for (const auto& source : k_rank_variables) {
      if (source.family != family || !values[quantity] || values[quantity]->variable != name_of(source, quantity))
        continue;
      if (std::find(launchers.begin(), launchers.end(), source.launcher) == launchers.end())
        launchers.push_back(source.launcher);
      break;
    }
  }
  return join(launchers, ", ");
}

// The quantity's value; 1 process alone in its world may lack it (`fallback_when_alone`); else throws
// naming the variables that could have given it.
long required(const Values& values, int quantity, long fallback_when_alone, Family family,
              const std::string& launcher) {
  if (values[quantity]) return values[quantity]->number;
  if (values[k_size] && values[k_size]->number == 1) return fallback_when_alone;
  std::vector<std::string> names;
  for (const auto& source : k_rank_variables) {
    std::string name = name_of(source, quantity);
    if (source.family == family && !name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  bool slurm_local_size = family == Family::slurm && quantity == k_local_size;
  if (slurm_local_size) names = {"SLURM_STEP_TASKS_PER_NODE", "SLURM_NODEID"};
  throw UserError(
      std::string("cannot tell this process's ") + k_quantity_names[quantity] + " from the " + launcher +
          " launcher: " +
          (slurm_local_size ? "it needs " + quoted_list(names, " and ") : "none of " + quoted_list(names) + " is set"),
      "export it, or start the ranks with mpiexec, srun or ezpz launch");
}

void check_consistent(const RankInfo& info, const Values& values) {
  if (info.rank < info.world_size && info.local_rank < info.local_world_size &&
      info.local_world_size <= info.world_size)
    return;
  auto shown = [&](int quantity) {
    return values[quantity] ? ", " + values[quantity]->variable + "=" + values[quantity]->text : std::string();
  };
  throw UserError("launcher variables contradict each other: " + values[k_rank]->variable + "=" + values[k_rank]->text +
                      shown(k_size) + shown(k_local_rank) + shown(k_local_size),
                  "a rank must be smaller than its world size");
}

}  // namespace

RankInfo discover_rank(const EnvLookup& env) {
  RankInfo info;
  std::optional<Family> family = rank_family(env);
  if (!family) {
    info.launcher = "none";
    return info;
  }
  Values values = family_values(env, *family);
  // For messages until the identity is known: the launcher of the row that set the rank.
  std::string provisional;
  for (const auto& source : k_rank_variables) {
    if (source.family == *family && env(source.rank)) {
      provisional = source.launcher;
      break;
    }
  }
  info.rank = values[k_rank]->number;
  info.world_size = required(values, k_size, 1, *family, provisional);
  info.local_rank = required(values, k_local_rank, 0, *family, provisional);
  info.local_world_size = required(values, k_local_size, 1, *family, provisional);
  for (const auto& value : values) {
    if (value) info.variables.push_back(value->variable);
  }
  std::string name = launcher_name(*family, values);
  info.launcher = name.empty() ? provisional : name;
  check_consistent(info, values);
  // Without a node index, ranks are taken to fill nodes in order with the same count on each.
  info.node_rank = values[k_node_rank] ? values[k_node_rank]->number : info.rank / info.local_world_size;
  return info;
}

}  // namespace ezpz::core
