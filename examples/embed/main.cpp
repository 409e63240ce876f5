// A workflow tool's view of ezpz: load a spec, resolve it with an override and see where a value came
// from, validate a broken one into data, render, submit through our own runner, and set up a rank.
#include <ezpz/ezpz.hpp>

#include <iostream>

namespace {

// Stands in for sbatch: records the command and answers with a job id.
class RecordingRunner : public ezpz::ProcessRunner {
 public:
  ezpz::ProcessResult run(const std::vector<std::string>& argv, const std::string&) override {
    ezpz::ProcessResult result;
    result.out = "4242\n";
    std::cout << "runner:";
    for (const auto& word : argv) std::cout << " " << word;
    std::cout << "\n";
    return result;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string records = argc > 1 ? argv[1] : "records";
  std::cout << "ezpz " << ezpz::version() << " (headers " << ezpz::k_version << ")\n";
  ezpz::Catalog catalog;
  std::cout << "systems: " << catalog.systems().size() << "\n";

  ezpz::Spec spec = ezpz::Spec::from_values(ezpz::Value::map({
      {"system", "slurm"},
      {"nodes", 2},
      {"walltime", "10m"},
      {"run", ezpz::Value::list({"python3", "train.py"})},
  }));
  ezpz::ResolveOptions options;
  options.set = {"nodes=4"};
  ezpz::Job job = ezpz::resolve(catalog, spec, options);
  for (const auto& value : job.explain()) {
    if (value.key == "nodes") std::cout << "nodes = " << value.value << " from " << value.origin << "\n";
  }

  for (const auto& problem :
       ezpz::validate(catalog, ezpz::Spec::from_text("system: slurm\nnodez: 2\nrun: [true]\n", "broken.yaml"))) {
    std::cout << "problem: " << problem.file << ":" << problem.line << ":" << problem.column << ": " << problem.message
              << (problem.hint.empty() ? "" : " (" + problem.hint + ")") << "\n";
  }

  ezpz::Script script = ezpz::render(job);
  std::cout << "script: " << script.text.size() << " bytes, submitted with " << script.submit_argv.front() << "\n";
  RecordingRunner runner;
  ezpz::SubmitOptions submit_options;
  submit_options.records_dir = records;
  ezpz::Submission submission = ezpz::submit(job, script, runner, submit_options);
  std::cout << "job id: " << submission.job_id << "\n";

  ezpz::RankSetup rank = ezpz::rank_setup(catalog, {{"EZPZ_SYSTEM", "local"},
                                                    {"PMI_RANK", "3"},
                                                    {"PMI_SIZE", "4"},
                                                    {"MPI_LOCALRANKID", "1"},
                                                    {"MPI_LOCALNRANKS", "2"},
                                                    {"MASTER_ADDR", "127.0.0.1"}});
  std::cout << "rank " << rank.rank.rank << " of " << rank.rank.world_size << " (local " << rank.rank.local_rank << ", "
            << rank.rank.launcher << "): " << rank.device << ", " << rank.backend << "\n";

  try {
    ezpz::resolve(catalog, ezpz::Spec::from_text("system: nowhere\nrun: [true]\n"));
  } catch (const ezpz::Error& error) {
    std::cout << "error: " << error.diagnostics().front().message << "\n";
  }
  return 0;
}
