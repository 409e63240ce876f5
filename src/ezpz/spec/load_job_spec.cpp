// Reading a job file from disk or stdin.
#include <fstream>
#include <iostream>
#include <iterator>

#include "ezpz/spec/job_spec.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/limits.hpp"

namespace ezpz::core {

JobSpec load_job_spec(const std::string& path, Diagnostics& diagnostics) {
  std::string text;
  std::string name = path;
  if (path == "-") {
    name = "<stdin>";
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    text = read_regular_file(path, "job spec '" + path + "'", k_max_spec_bytes,
                             "check the path; use '-' to read from stdin");
  }
  YamlNode root = parse_yaml(make_source(name, std::move(text)));
  return read_job_spec(root, OriginKind::spec, diagnostics);
}

}  // namespace ezpz::core
