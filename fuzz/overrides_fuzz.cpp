// Overrides: every line of the input is one `--set KEY=VALUE`, and a line `EZPZ_NAME=VALUE` is also
// that environment variable, both on top of a valid spec; then resolve and render.
// Seeds: fuzz/corpus/overrides.
#include <map>

#include "ezpz/render/render.hpp"
#include "ezpz/resolve/resolve.hpp"
#include "fuzz_support.hpp"

using namespace ezpz::core;

namespace {

const char* const k_base_spec = "system: polaris\naccount: fuzz\nnodes: 2\nrun: [python3, train.py]\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  std::vector<std::string> lines;
  std::map<std::string, std::string> variables;
  for (size_t start = 0; start <= text.size();) {
    size_t end = std::min(text.find('\n', start), text.size());
    std::string line(text.substr(start, end - start));
    size_t equals = line.find('=');
    if (equals != std::string::npos) variables[line.substr(0, equals)] = line.substr(equals + 1);
    lines.push_back(std::move(line));
    start = end + 1;
  }
  fuzz::accepted([&] {
    Diagnostics diagnostics;
    ResolveInputs inputs;
    inputs.spec = read_job_spec(parse_yaml(make_source("job.yaml", k_base_spec)), OriginKind::spec, diagnostics);
    inputs.env = read_env_overrides(table_env(variables), diagnostics);
    for (const auto& line : lines) {
      if (line.find('=') != std::string::npos && line.front() != '=')  // what --set's validator lets through
        apply_assignment(inputs.cli, line, "--set", OriginKind::cli, diagnostics);
    }
    inputs.detect = [] { return std::nullopt; };
    diagnostics.throw_if_any();
    ResolvedJob job = resolve(fuzz::builtin_catalog(), inputs);
    fuzz::check_script(render(job, fuzz::builtin_catalog(), "/opt/ezpz/bin/ezpz").text);
  });
  return 0;
}
