// What the public handles hold, and the conversions between the public types and the core's.
#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ezpz/diagnostic.hpp"
#include "ezpz/job.hpp"
#include "ezpz/profile/catalog.hpp"
#include "ezpz/resolve/resolve.hpp"
#include "ezpz/spec/job_spec.hpp"
#include "ezpz/util/error.hpp"

namespace ezpz::detail {

// core::Catalog reads profiles lazily into caches: every use holds `mutex`.
struct CatalogImpl {
  explicit CatalogImpl(std::vector<std::string> search_path) : catalog(std::move(search_path)) {}
  core::Catalog catalog;
  std::mutex mutex;

  static std::shared_ptr<CatalogImpl>& of(const Catalog& handle) { return const_cast<Catalog&>(handle).m_impl; }
};

struct SpecImpl {
  std::string path;  // the file, for the default job name; "" when not a file
  core::JobSpec spec;
  std::vector<core::Diagnostic> problems;  // found while reading the keys; reported by resolve/validate

  static Spec make(std::shared_ptr<const SpecImpl> impl) {
    Spec spec;
    spec.m_impl = std::move(impl);
    return spec;
  }
  static const SpecImpl& of(const Spec& handle) { return *handle.m_impl; }
};

struct JobImpl {
  std::shared_ptr<CatalogImpl> catalog;  // the profiles `job` points into stay alive with it
  core::ResolvedJob job;

  static Job make(std::shared_ptr<const JobImpl> impl) {
    Job job;
    job.m_impl = std::move(impl);
    return job;
  }
  static const JobImpl& of(const Job& handle) { return *handle.m_impl; }
};

Diagnostic to_public(const core::Diagnostic& diagnostic);
std::vector<Diagnostic> to_public(const std::vector<core::Diagnostic>& diagnostics);

// Runs `body`, turning the core's UserError into the public Error.
template <class Body>
auto guarded(Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const core::UserError& error) {
    throw Error(to_public(error.diagnostics()));
  }
}

}  // namespace ezpz::detail
