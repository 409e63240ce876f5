// Profile loading: the input is a user's system profile (`fuzzsys.yaml` on the search path, so
// `extends:` reaches the compiled-in ones), loaded through the catalog, then a small job resolved
// against it and rendered. Seeds: systems/, fuzz/corpus/profile.
#include <fstream>

#include "ezpz/render/render.hpp"
#include "ezpz/resolve/resolve.hpp"
#include "fuzz_support.hpp"

using namespace ezpz::core;

namespace {

const char* const k_spec = "system: fuzzsys\naccount: fuzz\nnodes: 2\nrun: [python3, train.py]\n";

const fuzz::TempDir k_search_dir("ezpz-fuzz-profile");

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string file = (k_search_dir.path() / "fuzzsys.yaml").string();
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), size);
  fuzz::accepted([&] {
    Catalog catalog({k_search_dir.path().string()});
    (void)catalog.system("fuzzsys");
    Diagnostics diagnostics;
    ResolveInputs inputs;
    inputs.spec = read_job_spec(parse_yaml(make_source("job.yaml", k_spec)), OriginKind::spec, diagnostics);
    inputs.detect = [] { return std::nullopt; };
    diagnostics.throw_if_any();
    ResolvedJob job = resolve(catalog, inputs);
    fuzz::check_script(render(job, catalog, "/opt/ezpz/bin/ezpz").text);
  });
  return 0;
}
