// The public submit, status and cancel.
#include "ezpz/jobs.hpp"

#include <ctime>
#include <filesystem>

#include "ezpz/api/impl.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/render/render.hpp"
#include "ezpz/submit/job_ref.hpp"
#include "ezpz/submit/status.hpp"
#include "ezpz/submit/submit.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz {
namespace {

// The job and its scheduler, looked up while holding the catalog (the scheduler's entry stays put).
core::JobRef find(const Catalog& catalog, const JobQuery& query) {
  auto& impl = detail::CatalogImpl::of(catalog);
  std::lock_guard<std::mutex> lock(impl->mutex);
  return core::find_job(impl->catalog, core::records_root(query.records_dir), query.job_id, query.system,
                        core::process_env(), core::host_name());
}

}  // namespace

Submission submit(const Job& job, const Script& script, ProcessRunner& runner, const SubmitOptions& options) {
  const detail::JobImpl& impl = detail::JobImpl::of(job);
  return detail::guarded([&] {
    core::SubmitOptions core_options;
    core_options.records_root = core::records_root(options.records_dir);
    core_options.submit_dir =
        options.submit_dir.empty() ? std::filesystem::current_path().string() : options.submit_dir;
    core_options.hold = options.hold;
    core_options.now_utc = core::iso_utc(std::time(nullptr));
    core::JobRecord record =
        core::submit(impl.job, core::Script{script.text, script.submit_argv}, runner, core_options);
    return Submission{record.job_id, record.dir, (std::filesystem::path(record.dir) / "job.sh").string()};
  });
}

JobStatus status(const Catalog& catalog, const JobQuery& query, ProcessRunner& runner) {
  return detail::guarded([&] {
    core::JobRef ref = find(catalog, query);
    core::JobStatus found = core::query_status(*ref.scheduler, ref.job_id, runner);
    return JobStatus{found.job_id,          core::job_state_name(found.state),
                     found.done(),          found.exit_code,
                     found.scheduler_state, found.detail};
  });
}

std::string cancel(const Catalog& catalog, const JobQuery& query, ProcessRunner& runner) {
  return detail::guarded([&] { return core::cancel_job(find(catalog, query), runner); });
}

}  // namespace ezpz
