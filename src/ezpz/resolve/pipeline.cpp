// load → overrides → resolve, for every caller.
#include "ezpz/resolve/pipeline.hpp"

namespace ezpz::core {

ResolvedJob resolve_request(const Catalog& catalog, const JobRequest& request, Diagnostics& diagnostics) {
  ResolveInputs inputs;
  inputs.spec_path = request.spec_path;
  inputs.spec = request.spec;
  if (request.env) inputs.env = read_env_overrides(request.env, diagnostics);
  for (const auto& assignment : request.assignments)
    apply_assignment(inputs.cli, assignment, request.assignments_source, OriginKind::cli, diagnostics);
  std::vector<FlagValue> flags = request.flags;
  if (!request.system.empty()) flags.push_back({"system", "--system", request.system});
  for (const auto& flag : flags)
    apply_value(inputs.cli, flag.key, make_source(flag.flag, flag.text, true), 0, OriginKind::cli, diagnostics);
  inputs.detect = request.detect ? request.detect : [] { return std::optional<Detection>(); };
  inputs.for_launch = request.for_launch;
  std::optional<ResolvedJob> job;
  try {
    job = resolve(catalog, inputs);
  } catch (const UserError& error) {
    diagnostics.add(error);
  }
  diagnostics.throw_if_any();
  return std::move(*job);
}

}  // namespace ezpz::core
