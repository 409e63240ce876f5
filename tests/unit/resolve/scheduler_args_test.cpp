// scheduler_args may add directives, but not set an option that a spec key owns, in any spelling.
#include <gtest/gtest.h>

#include "../test_support.hpp"

namespace ezpz::core {
namespace {

struct Case {
  std::string system;
  std::string arg;       // one scheduler_args entry
  std::string expected;  // a part of the error, "" when the entry is accepted
};

const std::vector<Case> k_cases = {
    // Frontier's profile spells its directives short (-N, -t, -A); those spellings are owned too.
    {"frontier", "-N 5000", "sets '--nodes' (as '-N'), which the spec key 'nodes' owns"},
    {"frontier", "-t 999:00:00", "sets '--time' (as '-t'), which the spec key 'walltime' owns"},
    {"frontier", "-A other", "sets '--account' (as '-A'), which the spec key 'account' owns"},
    {"frontier", "--nodes=5000", "sets '--nodes', which the spec key 'nodes' owns"},
    {"frontier", "-J other", "sets '--job-name' (as '-J'), which the spec key 'name' owns"},
    {"frontier", "-p extended", "sets '--partition' (as '-p'), which the spec key 'queue' owns"},
    // Perlmutter's queue is a QOS.
    {"perlmutter", "-q premium", "sets '--qos' (as '-q'), which the spec key 'queue' owns"},
    {"perlmutter", "--qos=premium", "sets '--qos', which the spec key 'queue' owns"},
    {"perlmutter", "-p debug", "sets '--partition' (as '-p'), which the spec key 'queue' owns"},
    // Several options in one entry, combined flags, abbreviations.
    {"slurm", "--comment=x --nodes=5000", "sets '--nodes', which the spec key 'nodes' owns"},
    {"slurm", "--comment=x --nodes=5000", "sets 2 options: '--comment' and '--nodes'"},
    {"slurm", "--comment=x --exclusive", "sets 2 options: '--comment' and '--exclusive'"},
    {"slurm", "--partitio=debug", "sets '--partition' (as '--partitio'), which the spec key 'queue' owns"},
    {"slurm", "--tim=99:00:00", "sets '--time' (as '--tim'), which the spec key 'walltime' owns"},
    {"slurm", "--ntasks-per-no=4",
     "sets '--ntasks-per-node' (as '--ntasks-per-no'), which the spec key 'ranks_per_node' owns"},
    {"slurm", "-k", "sets '--no-kill' (as '-k'), which the spec key 'supervise.spare_nodes' owns"},
    {"slurm", "-HN5000", "sets '--nodes' (as '-N'), which the spec key 'nodes' owns"},
    {"slurm", "--tasks-per-node=64",
     "sets '--ntasks-per-node' (as '--tasks-per-node'), which the spec key 'ranks_per_node' owns"},
    {"slurm", "-t", "sets '--time' (as '-t'), which the spec key 'walltime' owns"},
    {"slurm", "--comment", "is refused by sbatch: '--comment' needs a value"},
    {"slurm", "--mem-per=1G",
     "is refused by sbatch: '--mem-per' is ambiguous: it abbreviates --mem-per-cpu, --mem-per-gpu"},
    {"slurm", "-X 5", "is refused by sbatch: '-X' is not an option"},
    // PBS: attached forms, resource lists, -W attributes, old -l nodes.
    {"aurora", "-lwalltime=99:00:00", "sets '-l walltime', which the spec key 'walltime' owns"},
    {"aurora", "-qprod", "sets '-q', which the spec key 'queue' owns"},
    {"aurora", "-l place=scatter,walltime=99:00:00", "sets '-l walltime', which the spec key 'walltime' owns"},
    {"aurora", "-l place=scatter,walltime=99:00:00", "sets 2 options: '-l place' and '-l walltime'"},
    {"aurora", "-l filesystems=home", "sets '-l filesystems', which the spec key 'filesystems' owns"},
    {"aurora", "-l nodes=5000", "sets '-l select' (as '-l nodes'), which the spec key 'nodes' owns"},
    {"aurora", "-l max_walltime=99:00:00",
     "sets '-l walltime' (as '-l max_walltime'), which the spec key 'walltime' owns"},
    {"aurora", "-l min_walltime=1:00", "sets '-l walltime' (as '-l min_walltime'), which the spec key 'walltime' owns"},
    {"aurora", "-W Account_Name=other", "sets '-A' (as '-W Account_Name'), which the spec key 'account' owns"},
    {"aurora", "-W depend=afterok:1", "sets '-W depend', which the spec key 'after' owns"},
    // PBS ignores the case of resource and attribute names.
    {"aurora", "-l Walltime=99:00:00", "sets '-l walltime' (as '-l Walltime'), which the spec key 'walltime' owns"},
    {"aurora", "-lSELECT=5000", "sets '-l select' (as '-l SELECT'), which the spec key 'nodes' owns"},
    {"aurora", "-W account_name=other", "sets '-A' (as '-W account_name'), which the spec key 'account' owns"},
    {"aurora", "-W DEPEND=afterok:1", "sets '-W depend' (as '-W DEPEND'), which the spec key 'after' owns"},
    {"aurora", "-N other", "sets '-N', which the spec key 'name' owns"},
    {"aurora", "-hq prod", "sets '-q', which the spec key 'queue' owns"},
    {"aurora", "--nodes=5", "is refused by qsub: '--nodes' is not an option"},
    // Allowed: options no spec key owns, and replacing a profile's own directive.
    {"aurora", "-l place=scatter:group=tier0", ""},
    {"aurora", "-k oe", ""},
    {"aurora", "-r y", "sets '-r', which the spec key 'supervise.requeue' owns"},
    {"slurm", "--requeue", "sets '--requeue', which the spec key 'supervise.requeue' owns"},
    {"slurm", "--open-mode=append", ""},
    {"frontier", "-q premium", ""},  // the batch queue is the partition only; a QOS is the user's
    {"frontier", "-S 0", ""},
    {"slurm", "--exclusive", ""},
    {"slurm", "--comment='a b'", ""},
    {"slurm", "--gpus=4", ""},  // an exact name is not an abbreviation of --gpus-per-node
    {"slurm", "--container-image=nvcr.io/x", ""},
};

std::string errors_of(const std::string& spec) {
  return test::error_messages([&] { test::resolve_layers({spec, {}, {}, ""}); });
}

TEST(SchedulerArgs, NoSpellingOfAnOwnedOptionGetsThrough) {
  for (const auto& c : k_cases) {
    std::string spec = "system: " + c.system + "\naccount: A\nrun: [x]\nscheduler_args:\n  - \"" + c.arg + "\"\n";
    std::string messages = errors_of(spec);
    if (c.expected.empty()) {
      EXPECT_EQ(messages, "") << c.system << ": " << c.arg;
    } else {
      EXPECT_NE(messages.find(c.expected), std::string::npos) << c.system << ": " << c.arg << "\n" << messages;
    }
  }
}

TEST(SchedulerArgs, TheChosenQueuesOwnDirectivesAreOwnedByQueue) {
  // Frontier's debug queue is the QOS debug on the batch partition.
  std::string messages =
      errors_of("system: frontier\naccount: A\nqueue: debug\nrun: [x]\nscheduler_args: ['-q premium']\n");
  EXPECT_NE(messages.find("sets '--qos' (as '-q'), which the spec key 'queue' owns"), std::string::npos) << messages;
}

TEST(SchedulerArgs, AnEntryReplacesTheProfilesDirectiveInAnySpelling) {
  ResolvedJob job = test::resolve_layers(
      {"system: aurora\naccount: A\nrun: [x]\nscheduler_args: ['-lplace=scatter:group=x']\n", {}, {}, ""});
  int place = 0;
  for (const auto& line : job.directives) place += line.find("place=") != std::string::npos;
  EXPECT_EQ(place, 1);
  EXPECT_EQ(job.directives.back(), "-lplace=scatter:group=x");
}

}  // namespace
}  // namespace ezpz::core
