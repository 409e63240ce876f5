// The public catalog over core::Catalog.
#include "ezpz/catalog.hpp"

#include <cstdlib>
#include <filesystem>

#include "ezpz/api/impl.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/util/handoff_variables.hpp"

namespace ezpz {

Catalog::Catalog() : Catalog(default_search_path()) {}

Catalog::Catalog(std::vector<std::string> search_path)
    : m_impl(detail::guarded([&] { return std::make_shared<detail::CatalogImpl>(std::move(search_path)); })) {}

std::vector<std::string> Catalog::default_search_path() {
  std::error_code error;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return core::Catalog::default_search_path(std::getenv(core::k_env_systems_path), std::getenv("HOME"),
                                            error ? std::string() : exe.parent_path().string());
}

std::vector<SystemInfo> Catalog::systems() const {
  return detail::guarded([&] {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    std::vector<SystemInfo> out;
    for (const auto& name : m_impl->catalog.system_names()) {
      const core::SystemProfile& profile = m_impl->catalog.system(name);
      out.push_back(SystemInfo{profile.name, profile.description, profile.scheduler, profile.path});
    }
    return out;
  });
}

std::optional<Detection> Catalog::detect(const std::map<std::string, std::string>& env,
                                         const std::string& hostname) const {
  return detail::guarded([&] {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    return core::detect_system(m_impl->catalog, core::DetectInput{core::table_env(env), hostname});
  });
}

std::optional<Detection> Catalog::detect_here() const {
  return detail::guarded([&] {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    return core::detect_here(m_impl->catalog);
  });
}

}  // namespace ezpz
