// Tar unpacking (yeet --unpack): the input is the tarball. Properties: nothing is written outside the
// directory it unpacks into, and a refused archive is an error, never a crash.
// Seeds: fuzz/corpus/unpack.
#include <filesystem>
#include <fstream>

#include "ezpz/yeet/archive.hpp"
#include "fuzz_support.hpp"

using namespace ezpz::core;
namespace fs = std::filesystem;

namespace {

// It holds the tarball and 1/2/3/into, so that a member escaping by up to four '..' lands where the
// check below sees it.
const fuzz::TempDir k_sandbox("ezpz-fuzz-unpack");

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fs::path tarball = k_sandbox.path() / "in.tar";
  const fs::path into = k_sandbox.path() / "1" / "2" / "3" / "into";
  std::ofstream(tarball, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), size);
  fs::create_directories(into);
  fuzz::accepted([&] { yeet::unpack_archive(tarball.string(), into.string(), "fuzz.tar"); });
  for (fs::path way = into; way != k_sandbox.path(); way = way.parent_path()) {  // each level holds only the way in
    for (const auto& entry : fs::directory_iterator(way.parent_path())) {
      if (entry.path() != way && entry.path() != tarball)
        fuzz::property_failed("unpacking wrote outside its directory: " + entry.path().string());
    }
  }
  std::error_code error;
  fs::permissions(into, fs::perms::owner_all, fs::perm_options::add, error);
  fs::remove_all(into, error);
  if (error) fuzz::property_failed("cannot clean up after unpacking: " + error.message());
  return 0;
}
