// The spec loader: YAML text → job spec → resolve against the compiled-in profiles → script, and the
// resolved values as JSON (`ezpz resolve --json`). Seeds: examples/, tests/errors/, fuzz/corpus/spec.
#include <nlohmann/json.hpp>

#include "ezpz/render/render.hpp"
#include "ezpz/resolve/resolve.hpp"
#include "fuzz_support.hpp"

using namespace ezpz::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::accepted([&] {
    Diagnostics diagnostics;
    ResolveInputs inputs;
    inputs.spec_path = "job.yaml";
    inputs.spec = read_job_spec(parse_yaml(make_source("job.yaml", std::string(fuzz::as_text(data, size)))),
                                OriginKind::spec, diagnostics);
    inputs.detect = [] { return std::optional<ezpz::Detection>{ezpz::Detection{"polaris", "fuzz"}}; };
    diagnostics.throw_if_any();
    ResolvedJob job = resolve(fuzz::builtin_catalog(), inputs);
    Script script = render(job, fuzz::builtin_catalog(), "/opt/ezpz/bin/ezpz");
    fuzz::check_script(script.text);
    // Strict: text that is not UTF-8 must have been refused when it was read, never reach the JSON.
    (void)resolved_json(job, true).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  });
  return 0;
}
