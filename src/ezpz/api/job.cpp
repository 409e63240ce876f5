// The public pipeline: Spec, resolve, validate, render.
#include "ezpz/job.hpp"

#include <cmath>
#include <sstream>

#include "ezpz/api/impl.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/render/render.hpp"
#include "ezpz/resolve/pipeline.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/yaml_node.hpp"

namespace ezpz {
namespace {

using core::YamlNode;

// A number as YAML would read it back unchanged.
std::string number_text(double number) {
  if (std::isnan(number)) return ".nan";
  if (std::isinf(number)) return number > 0 ? ".inf" : "-.inf";
  std::ostringstream out;
  out.precision(17);
  out << number;
  return out.str();
}

// The located tree of a Value, under the bounds and text rule a YAML file is read under (`budget`).
// A scalar's place is its key path, shown as "<values> nodes=4".
YamlNode to_node(const Value& value, const std::string& path, const std::string& name, core::ValueBudget& budget,
                 int depth) {
  YamlNode node;
  auto place = [&](const std::string& text) {
    if (path.empty()) return core::SourceLoc{core::make_source(name, std::string()), 0, 0, 1};  // the whole spec
    return core::SourceLoc{core::make_source(name, path + "=" + text, true), 1, 1, 1};
  };
  switch (value.type()) {
    case Value::Type::null:
      node.loc = place("null");
      budget.count_value(depth, node.loc);
      break;
    case Value::Type::boolean:
    case Value::Type::integer:
    case Value::Type::number:
    case Value::Type::string:
      node.kind = YamlNode::Kind::scalar;
      node.scalar = value.type() == Value::Type::boolean   ? (value.as_bool() ? "true" : "false")
                    : value.type() == Value::Type::integer ? std::to_string(value.as_int())
                    : value.type() == Value::Type::number  ? number_text(value.as_number())
                                                           : value.as_string();
      node.quoted = value.type() == Value::Type::string;  // "01:00:00" stays text
      node.loc = place(core::printable(node.scalar));
      budget.count_value(depth, node.loc);
      budget.check_text(node.scalar, node.loc);
      break;
    case Value::Type::list:
      node.kind = YamlNode::Kind::sequence;
      node.loc = place("[…]");
      budget.count_value(depth, node.loc);  // before the items: the depth is checked on the way down
      for (size_t i = 0; i < value.items().size(); ++i)
        node.items.push_back(to_node(value.items()[i], path + "[" + std::to_string(i) + "]", name, budget, depth + 1));
      break;
    case Value::Type::map:
      node.kind = YamlNode::Kind::map;
      node.loc = place("{…}");
      budget.count_value(depth, node.loc);
      for (size_t i = 0; i < value.keys().size(); ++i) {
        const std::string& key = value.keys()[i];
        std::string key_path = path.empty() ? core::printable(key) : path + "." + core::printable(key);
        core::SourceLoc key_loc{core::make_source(name, key_path, true), 1, 1, 1};
        budget.check_text(key, key_loc);
        node.entries.push_back(
            core::MapEntry{key, key_loc, to_node(value.items()[i], key_path, name, budget, depth + 1)});
      }
      break;
  }
  return node;
}

// A Spec from `read` (which reads the keys, reporting problems into the collector it is given); the
// problems are kept for resolve and validate. `path`: the file, "" when not one.
template <class Read>
Spec make_spec(const std::string& path, Read&& read) {
  auto impl = std::make_shared<detail::SpecImpl>();
  impl->path = path;
  core::Diagnostics diagnostics;
  impl->spec = read(diagnostics);
  impl->problems = diagnostics.items();
  return detail::SpecImpl::make(std::move(impl));
}

Spec read_spec(const YamlNode& root) {
  return make_spec({}, [&](core::Diagnostics& d) { return core::read_job_spec(root, core::OriginKind::spec, d); });
}

core::ResolvedJob resolve_core(const detail::CatalogImpl& catalog, const Spec& spec, const ResolveOptions& options) {
  const detail::SpecImpl& loaded = detail::SpecImpl::of(spec);
  core::Diagnostics diagnostics;
  for (const auto& problem : loaded.problems) diagnostics.error(problem.loc, problem.message, problem.hint);
  core::JobRequest request;
  request.spec_path = loaded.path;
  request.spec = loaded.spec;
  request.assignments = options.set;
  request.assignments_source = "set";
  request.system = options.system;
  core::EnvLookup given = core::table_env(options.env);
  request.env = options.process_env ? core::EnvLookup([given](const std::string& name) {
    auto value = core::process_env()(name);
    return value ? value : given(name);
  })
                                    : given;
  if (options.detect) {
    request.detect = [&catalog] { return core::detect_here(catalog.catalog); };
  }
  return core::resolve_request(catalog.catalog, request, diagnostics);
}

}  // namespace

Spec Spec::from_file(const std::string& path) {
  return detail::guarded([&] {
    return make_spec(path == "-" ? std::string() : path,
                     [&](core::Diagnostics& d) { return core::load_job_spec(path, d); });
  });
}

Spec Spec::from_text(const std::string& yaml, const std::string& name) {
  return detail::guarded([&] { return read_spec(core::parse_yaml(core::make_source(name, yaml))); });
}

Spec Spec::from_values(const Value& values, const std::string& name) {
  return detail::guarded([&] {
    if (values.type() != Value::Type::map) {
      throw core::UserError(core::SourceLoc{core::make_source(name, std::string()), 0, 0, 1},
                            "a job spec given as values must be a map of keys (nodes, run …)");
    }
    core::ValueBudget budget;
    return read_spec(to_node(values, "", name, budget, 0));
  });
}

std::string Job::system() const {
  return m_impl->job.profile->name;
}
std::string Job::scheduler() const {
  return m_impl->job.scheduler->name;
}
std::string Job::hash() const {
  return m_impl->job.hash;
}
std::vector<Diagnostic> Job::warnings() const {
  return detail::to_public(m_impl->job.warnings);
}

std::vector<ExplainedValue> Job::explain() const {
  std::vector<ExplainedValue> out;
  for (const auto& value : core::explain(m_impl->job)) {
    out.push_back(ExplainedValue{value.key, value.value.dump(), core::origin_kind_name(value.origin.kind),
                                 value.origin.describe()});
  }
  return out;
}

std::string Job::to_json(bool with_origins) const {
  return core::resolved_json(m_impl->job, with_origins).dump();
}

Job resolve(const Catalog& catalog, const Spec& spec, const ResolveOptions& options) {
  return detail::guarded([&] {
    auto impl = std::make_shared<detail::JobImpl>();
    impl->catalog = detail::CatalogImpl::of(catalog);
    std::lock_guard<std::mutex> lock(impl->catalog->mutex);
    impl->job = resolve_core(*impl->catalog, spec, options);
    return detail::JobImpl::make(std::move(impl));
  });
}

std::vector<Diagnostic> validate(const Catalog& catalog, const Spec& spec, const ResolveOptions& options) {
  auto& impl = detail::CatalogImpl::of(catalog);
  std::lock_guard<std::mutex> lock(impl->mutex);
  try {
    return detail::to_public(resolve_core(*impl, spec, options).warnings);
  } catch (const core::UserError& error) {
    return detail::to_public(error.diagnostics());
  }
}

Script render(const Job& job, const std::string& ezpz_bin) {
  const detail::JobImpl& impl = detail::JobImpl::of(job);
  return detail::guarded([&] {
    std::lock_guard<std::mutex> lock(impl.catalog->mutex);
    core::Script script = core::render(impl.job, impl.catalog->catalog, ezpz_bin);
    return Script{std::move(script.text), std::move(script.submit_argv)};
  });
}

}  // namespace ezpz
