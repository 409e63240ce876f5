# The third-party libraries, each taken from the system or built here from a pinned source (docs/install.md,
# "From source, without root"). EZPZ_FETCH_DEPENDENCIES:
#   AUTO (default)  a library that is not found on the system is downloaded and built as part of the project
#   ON              every library in the table is downloaded and built (tests/source_build)
#   OFF             the system's only; a missing one stops the configure, naming its Debian package
# A built library is static and position-independent, from the source tarball Debian 12 ships (the orig
# tarball in Debian's pool), SHA-256 checked. EZPZ_DEPENDENCY_MIRROR (or the environment variable of that
# name): a directory, or a URL base, holding the same files under the same names, used instead of Debian's
# pool (for a machine without network; the SHA-256 still checks them). To fill such a directory:
#   cmake -DEZPZ_DOWNLOAD_DIR=DIR -P cmake/dependencies.cmake
# MPI is the site's (never built here): without MPICH's pkg-config file, ezpz-yeet-mpi is not built.

set(EZPZ_DEPENDENCY_POOL http://deb.debian.org/debian/pool/main)
# name | Debian package (system) | orig tarball under the pool | SHA-256 | how it is built here
set(k_ezpz_dependencies
    "yaml-cpp|libyaml-cpp-dev|y/yaml-cpp/yaml-cpp_0.7.0+dfsg.orig.tar.xz|dc63708605404e0b963e0ca3a9619d1c8270eda2839603e6fa0384e5e51e5312|src/*.cpp and src/contrib/*.cpp, our own target"
    "nlohmann_json|nlohmann-json3-dev|n/nlohmann-json3/nlohmann-json3_3.11.2.orig.tar.gz|d69f9deb6a75e2580465c6c4c5111b89c4dc2fa94e3a85fcd2ffcd9a143d9273|headers only (include/)"
    "cli11|libcli11-dev|c/cli11/cli11_2.1.2+ds.orig.tar.xz|8143d20b688e98ccce8e24562d3b68e5f47c12e896c42c7ca8553dbde5bed55d|headers only (include/)"
    "boost|libboost-filesystem-dev|b/boost1.74/boost1.74_1.74.0+ds1.orig.tar.xz|192f5df504d282cb81288f88232d8af45b64a9ab531e1c7cf8ae955f16f6bb28|headers (libs/*/include) and libs/filesystem/src/*.cpp, our own target"
    "xxhash|libxxhash-dev|x/xxhash/xxhash_0.8.1.orig.tar.gz|3bb6b7d6f30c591dd65aaaff1c8b7a5b94d81687998ca9400082c739a690436c|xxhash.c, our own target"
    "libarchive|libarchive-dev|liba/libarchive/libarchive_3.6.2.orig.tar.xz|9e2c1b80d5fbe59b61308fdfab6c79b5021d7ff4ff2489fb12daf0a96a83551d|its own CMake project (archive_static), only the parts yeet uses"
    "re2|libre2-dev|r/re2/re2_20220601+dfsg.orig.tar.xz|3bc61251da3b0b97be40a8a127818c517c62516e4eda11fc901d29496663df54|re2/*.cc and util/*.cc, our own target, with the three tables Debian's tarball leaves out generated (perl, python3)"
    "unicode-data|unicode-data|u/unicode-data/unicode-data_15.0.0-1_all.deb|5efef23bbb1c6a133ecbdd63a2cfa07159ccacf5466a49e2426101c5ecd691fc|not built: the Unicode tables RE2's generators read, from Debian's binary package as Debian's re2 build reads them")

# ezpz_dependency(NAME PREFIX): PREFIX_PACKAGE, PREFIX_FILE (the tarball's name), PREFIX_URL, PREFIX_SHA256
# of the table's row NAME; PREFIX_URL is under EZPZ_DEPENDENCY_MIRROR when that is set.
function(ezpz_dependency name prefix)
  foreach(row IN LISTS k_ezpz_dependencies)
    string(REPLACE "|" ";" fields "${row}")
    list(GET fields 0 row_name)
    if(row_name STREQUAL name)
      list(GET fields 1 package)
      list(GET fields 2 path)
      list(GET fields 3 sha256)
      get_filename_component(file ${path} NAME)
      set(url ${EZPZ_DEPENDENCY_POOL}/${path})
      if(EZPZ_DEPENDENCY_MIRROR)
        set(url ${EZPZ_DEPENDENCY_MIRROR}/${file})
      endif()
      set(${prefix}_PACKAGE ${package} PARENT_SCOPE)
      set(${prefix}_FILE ${file} PARENT_SCOPE)
      set(${prefix}_URL ${url} PARENT_SCOPE)
      set(${prefix}_SHA256 ${sha256} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no dependency '${name}' in cmake/dependencies.cmake")
endfunction()

# Script mode: download every tarball into EZPZ_DOWNLOAD_DIR (what is there with the right SHA-256 is kept).
if(CMAKE_SCRIPT_MODE_FILE)
  if(NOT EZPZ_DOWNLOAD_DIR)
    message(FATAL_ERROR "usage: cmake -DEZPZ_DOWNLOAD_DIR=DIR -P cmake/dependencies.cmake")
  endif()
  set(EZPZ_DEPENDENCY_MIRROR "")
  file(MAKE_DIRECTORY ${EZPZ_DOWNLOAD_DIR})
  foreach(row IN LISTS k_ezpz_dependencies)
    string(REGEX REPLACE "\\|.*" "" name "${row}")
    ezpz_dependency(${name} dep)
    set(target ${EZPZ_DOWNLOAD_DIR}/${dep_FILE})
    if(EXISTS ${target})
      file(SHA256 ${target} have)
      if(have STREQUAL dep_SHA256)
        message(STATUS "${dep_FILE}: present, SHA-256 ${have}")
        continue()
      endif()
      message(STATUS "${dep_FILE}: SHA-256 ${have}, expected ${dep_SHA256}: downloading it again")
    endif()
    # Into a temporary name first: an interrupted download (or one running beside it) never leaves a
    # file of the final name with other bytes.
    string(RANDOM LENGTH 8 suffix)
    set(part ${target}.${suffix}.part)
    file(DOWNLOAD ${dep_URL} ${part} STATUS status)
    list(GET status 0 code)
    if(NOT code EQUAL 0)
      file(REMOVE ${part})
      message(FATAL_ERROR "${dep_URL}: ${status}")
    endif()
    file(SHA256 ${part} have)
    if(NOT have STREQUAL dep_SHA256)
      file(REMOVE ${part})
      message(FATAL_ERROR "${dep_URL}: SHA-256 hash mismatch: it is ${have}, cmake/dependencies.cmake pins ${dep_SHA256}")
    endif()
    file(RENAME ${part} ${target})
    message(STATUS "${dep_FILE}: downloaded, SHA-256 ${dep_SHA256}")
  endforeach()
  return()
endif()

set(EZPZ_FETCH_DEPENDENCIES AUTO CACHE STRING
    "Build the third-party libraries from pinned sources: AUTO (those not found), ON (all), OFF (never)")
set_property(CACHE EZPZ_FETCH_DEPENDENCIES PROPERTY STRINGS AUTO ON OFF)
set(EZPZ_DEPENDENCY_MIRROR "$ENV{EZPZ_DEPENDENCY_MIRROR}" CACHE STRING
    "A directory or URL base with the pinned source tarballs, used instead of Debian's pool")
if(NOT EZPZ_FETCH_DEPENDENCIES MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "EZPZ_FETCH_DEPENDENCIES is '${EZPZ_FETCH_DEPENDENCIES}': expected AUTO, ON or OFF")
endif()
if(EZPZ_DEPENDENCY_MIRROR MATCHES "^[a-z]+://")
  string(REGEX REPLACE "/+$" "" EZPZ_DEPENDENCY_MIRROR "${EZPZ_DEPENDENCY_MIRROR}")
elseif(EZPZ_DEPENDENCY_MIRROR)
  get_filename_component(EZPZ_DEPENDENCY_MIRROR "${EZPZ_DEPENDENCY_MIRROR}" ABSOLUTE)
endif()

include(FetchContent)
find_package(PkgConfig)  # not required: login nodes may lack it when every library is built here

# ezpz_populate(NAME [NO_EXTRACT]): downloads (or takes from the mirror) NAME's tarball, checks its SHA-256
# and unpacks it into <build>/_deps/NAME-src (NO_EXTRACT: puts it there as it is); sets NAME_SOURCE_DIR.
function(ezpz_populate name)
  ezpz_dependency(${name} dep)
  if(POLICY CMP0135)
    cmake_policy(SET CMP0135 NEW)  # unpacked files get the time of unpacking
  endif()
  set(extract)
  if(ARGV1 STREQUAL "NO_EXTRACT")
    message(STATUS "${name}: taking it from ${dep_URL}")
    set(extract DOWNLOAD_NO_EXTRACT TRUE DOWNLOAD_DIR ${FETCHCONTENT_BASE_DIR}/${name}-src)
  else()
    message(STATUS "${name}: building it from ${dep_URL}")
  endif()
  FetchContent_Populate(ezpz_${name} QUIET
    URL ${dep_URL}
    URL_HASH SHA256=${dep_SHA256}
    ${extract}
    SOURCE_DIR ${FETCHCONTENT_BASE_DIR}/${name}-src
    SUBBUILD_DIR ${FETCHCONTENT_BASE_DIR}/${name}-subbuild
    BINARY_DIR ${FETCHCONTENT_BASE_DIR}/${name}-build)
  set(${name}_SOURCE_DIR ${FETCHCONTENT_BASE_DIR}/${name}-src PARENT_SCOPE)
endfunction()

# ezpz_missing(NAME WHAT): with EZPZ_FETCH_DEPENDENCIES=OFF, stop, naming the package; else say it is built.
function(ezpz_missing name what)
  ezpz_dependency(${name} dep)
  if(EZPZ_FETCH_DEPENDENCIES STREQUAL "OFF")
    message(FATAL_ERROR "${what} not found (Debian: apt-get install ${dep_PACKAGE}) and EZPZ_FETCH_DEPENDENCIES=OFF: "
                        "install it, or configure with -DEZPZ_FETCH_DEPENDENCIES=AUTO to build it from ${dep_URL}")
  endif()
  if(EZPZ_FETCH_DEPENDENCIES STREQUAL "ON")
    message(STATUS "${name}: not looked for on the system (EZPZ_FETCH_DEPENDENCIES=ON)")
  else()
    message(STATUS "${what} not found on the system")
  endif()
endfunction()

# Each library: found on the system (unless ON), or built. What the project links afterwards:
#   EZPZ_YAML_CPP, YAML_CPP_INCLUDE_DIR, EZPZ_YAML_CPP_SHARED (for libezpz.so)
#   nlohmann_json::nlohmann_json, CLI11::CLI11
#   EZPZ_BOOST (headers and Boost.Filesystem), EZPZ_BOOST_FILESYSTEM_SHARED (for libezpz.so)
#   EZPZ_XXHASH, EZPZ_XXHASH_SHARED (for libezpz.so), EZPZ_LIBARCHIVE
#   EZPZ_RE2, EZPZ_RE2_SHARED (for libezpz.so)
#   MPICH_FOUND and PkgConfig::MPICH
# The static archives of the system's libraries are needed for the static PIE (EZPZ_STATIC); libezpz.so
# links their shared libraries. A library built here serves both.
set(ezpz_search_system ON)
if(EZPZ_FETCH_DEPENDENCIES STREQUAL "ON")
  set(ezpz_search_system OFF)
endif()

# yaml-cpp
if(ezpz_search_system)
  find_package(yaml-cpp QUIET)
  if(yaml-cpp_FOUND AND EZPZ_STATIC)
    find_library(EZPZ_YAML_CPP_STATIC NAMES libyaml-cpp.a)
  endif()
endif()
if(yaml-cpp_FOUND AND (NOT EZPZ_STATIC OR EZPZ_YAML_CPP_STATIC))
  if(EZPZ_STATIC)
    set(EZPZ_YAML_CPP ${EZPZ_YAML_CPP_STATIC})
  else()
    set(EZPZ_YAML_CPP yaml-cpp)
  endif()
  set(EZPZ_YAML_CPP_SHARED yaml-cpp)
else()
  ezpz_missing(yaml-cpp "yaml-cpp (its CMake package and, for EZPZ_STATIC, libyaml-cpp.a)")
  ezpz_populate(yaml-cpp)
  file(GLOB sources ${yaml-cpp_SOURCE_DIR}/src/*.cpp ${yaml-cpp_SOURCE_DIR}/src/contrib/*.cpp)
  add_library(ezpz_yaml_cpp STATIC ${sources})
  target_include_directories(ezpz_yaml_cpp SYSTEM PUBLIC ${yaml-cpp_SOURCE_DIR}/include)
  target_include_directories(ezpz_yaml_cpp PRIVATE ${yaml-cpp_SOURCE_DIR}/src)
  set(EZPZ_YAML_CPP ezpz_yaml_cpp)
  set(EZPZ_YAML_CPP_SHARED ezpz_yaml_cpp)
  set(YAML_CPP_INCLUDE_DIR ${yaml-cpp_SOURCE_DIR}/include)
endif()

# nlohmann_json (headers only)
if(ezpz_search_system)
  find_package(nlohmann_json 3 QUIET)
endif()
if(NOT nlohmann_json_FOUND)
  ezpz_missing(nlohmann_json "nlohmann_json 3 (its CMake package)")
  ezpz_populate(nlohmann_json)
  add_library(ezpz_nlohmann_json INTERFACE)
  target_include_directories(ezpz_nlohmann_json SYSTEM INTERFACE ${nlohmann_json_SOURCE_DIR}/include)
  add_library(nlohmann_json::nlohmann_json ALIAS ezpz_nlohmann_json)
endif()

# CLI11 (headers only)
if(ezpz_search_system)
  find_package(CLI11 QUIET)
endif()
if(NOT CLI11_FOUND)
  ezpz_missing(cli11 "CLI11 (its CMake package)")
  ezpz_populate(cli11)
  add_library(ezpz_cli11 INTERFACE)
  target_include_directories(ezpz_cli11 SYSTEM INTERFACE ${cli11_SOURCE_DIR}/include)
  add_library(CLI11::CLI11 ALIAS ezpz_cli11)
endif()

# Boost: the headers (Boost.Process and its parts are header-only) and Boost.Filesystem.
if(ezpz_search_system)
  set(Boost_USE_STATIC_LIBS ${EZPZ_STATIC})
  find_package(Boost 1.74 QUIET COMPONENTS filesystem)
  find_library(EZPZ_BOOST_FILESYSTEM_SHARED NAMES libboost_filesystem.so)
endif()
if(Boost_FOUND AND EZPZ_BOOST_FILESYSTEM_SHARED)
  set(EZPZ_BOOST Boost::headers Boost::filesystem)
else()
  ezpz_missing(boost "Boost 1.74 or newer with Boost.Filesystem (static and shared)")
  ezpz_populate(boost)
  # The orig tarball is Boost's modular tree: each library's headers are in libs/NAME/include.
  file(GLOB include_dirs LIST_DIRECTORIES true ${boost_SOURCE_DIR}/libs/*/include ${boost_SOURCE_DIR}/libs/numeric/*/include)
  add_library(ezpz_boost_headers INTERFACE)
  target_include_directories(ezpz_boost_headers SYSTEM INTERFACE ${include_dirs})
  target_compile_definitions(ezpz_boost_headers INTERFACE BOOST_ALL_NO_LIB)
  # What libs/filesystem/build/Jamfile.v2 defines for a static library on Linux.
  file(GLOB sources ${boost_SOURCE_DIR}/libs/filesystem/src/*.cpp)
  add_library(ezpz_boost_filesystem STATIC ${sources})
  target_compile_definitions(ezpz_boost_filesystem PRIVATE BOOST_FILESYSTEM_SOURCE BOOST_FILESYSTEM_HAS_STAT_ST_MTIM
                             PUBLIC BOOST_FILESYSTEM_STATIC_LINK=1)
  target_link_libraries(ezpz_boost_filesystem PUBLIC ezpz_boost_headers)
  set(EZPZ_BOOST ezpz_boost_filesystem)
  set(EZPZ_BOOST_FILESYSTEM_SHARED ezpz_boost_filesystem)
endif()

# xxhash (XXH3)
if(ezpz_search_system AND PkgConfig_FOUND)
  pkg_check_modules(XXHASH QUIET IMPORTED_TARGET libxxhash)
  if(XXHASH_FOUND AND EZPZ_STATIC)
    find_library(EZPZ_XXHASH_STATIC NAMES libxxhash.a)
  endif()
endif()
if(XXHASH_FOUND AND (NOT EZPZ_STATIC OR EZPZ_XXHASH_STATIC))
  if(EZPZ_STATIC)
    set(EZPZ_XXHASH ${EZPZ_XXHASH_STATIC})
  else()
    set(EZPZ_XXHASH PkgConfig::XXHASH)
  endif()
  set(EZPZ_XXHASH_SHARED PkgConfig::XXHASH)
else()
  ezpz_missing(xxhash "xxhash (pkg-config libxxhash and, for EZPZ_STATIC, libxxhash.a)")
  ezpz_populate(xxhash)
  enable_language(C)
  add_library(ezpz_xxhash STATIC ${xxhash_SOURCE_DIR}/xxhash.c)
  target_include_directories(ezpz_xxhash SYSTEM PUBLIC ${xxhash_SOURCE_DIR})
  set(EZPZ_XXHASH ezpz_xxhash)
  set(EZPZ_XXHASH_SHARED ezpz_xxhash)
endif()

# libarchive (yeet's tar reader and disk writer)
if(ezpz_search_system AND PkgConfig_FOUND)
  pkg_check_modules(LIBARCHIVE QUIET IMPORTED_TARGET libarchive)
endif()
if(LIBARCHIVE_FOUND)
  set(EZPZ_LIBARCHIVE PkgConfig::LIBARCHIVE)
else()
  ezpz_missing(libarchive "libarchive (pkg-config libarchive)")
  ezpz_populate(libarchive)
  enable_language(C)
  # Only what yeet uses (as cmake/yeet-helper): each compression library is linked when the system has it,
  # else libarchive runs the gzip, xz, zstd or bzip2 program.
  foreach(off OPENSSL MBEDTLS NETTLE LIBB2 LZ4 LZO LIBXML2 EXPAT PCREPOSIX PCRE2POSIX LIBGCC CNG TAR CPIO CAT
              UNZIP ACL ICONV TEST INSTALL WERROR)
    set(ENABLE_${off} OFF CACHE BOOL "" FORCE)
  endforeach()
  set(CMAKE_POLICY_VERSION_MINIMUM 3.5)  # its cmake_minimum_required(2.8.12) is refused by CMake 4
  add_subdirectory(${libarchive_SOURCE_DIR} ${FETCHCONTENT_BASE_DIR}/libarchive-build EXCLUDE_FROM_ALL)
  unset(CMAKE_POLICY_VERSION_MINIMUM)
  add_library(ezpz_libarchive INTERFACE)
  target_include_directories(ezpz_libarchive SYSTEM INTERFACE ${libarchive_SOURCE_DIR}/libarchive)
  target_compile_definitions(ezpz_libarchive INTERFACE LIBARCHIVE_STATIC)
  target_link_libraries(ezpz_libarchive INTERFACE archive_static)
  set(EZPZ_LIBARCHIVE ezpz_libarchive)
endif()

# RE2 (every regular expression: src/ezpz/util/regex.cpp). Debian's source leaves out the tables that
# RE2's own scripts generate (debian/copyright, Files-Excluded); they are made here as Debian's build
# makes them: make_perl_groups.pl with perl, make_unicode_{casefold,groups}.py with python3 from the
# Unicode data of Debian's unicode-data package (unicode.py imports six for urllib, which reading local
# files does not need).
if(ezpz_search_system AND PkgConfig_FOUND)
  pkg_check_modules(RE2 QUIET IMPORTED_TARGET re2)
  if(RE2_FOUND AND EZPZ_STATIC)
    find_library(EZPZ_RE2_STATIC NAMES libre2.a)
  endif()
endif()
if(RE2_FOUND AND (NOT EZPZ_STATIC OR EZPZ_RE2_STATIC))
  if(EZPZ_STATIC)
    find_package(Threads REQUIRED)
    set(EZPZ_RE2 ${EZPZ_RE2_STATIC} Threads::Threads)
  else()
    set(EZPZ_RE2 PkgConfig::RE2)
  endif()
  set(EZPZ_RE2_SHARED PkgConfig::RE2)
else()
  ezpz_missing(re2 "RE2 (pkg-config re2 and, for EZPZ_STATIC, libre2.a)")
  find_program(EZPZ_PERL perl)
  find_program(EZPZ_PYTHON3 python3)
  if(NOT EZPZ_PERL OR NOT EZPZ_PYTHON3)
    message(FATAL_ERROR "building RE2 needs perl and python3 (to generate its tables): install them, or RE2 "
                        "(Debian: apt-get install libre2-dev)")
  endif()
  ezpz_populate(re2)
  ezpz_populate(unicode-data NO_EXTRACT)
  ezpz_dependency(re2 re2)
  ezpz_dependency(unicode-data unicode)
  # Made once per pair of pinned files (the build tree keeps them across configures).
  string(SUBSTRING "${re2_SHA256}" 0 8 re2_key)
  string(SUBSTRING "${unicode_SHA256}" 0 8 unicode_key)
  set(tables ${FETCHCONTENT_BASE_DIR}/re2-tables-${re2_key}-${unicode_key})
  if(NOT EXISTS ${tables}/unicode_groups.cc)
    file(ARCHIVE_EXTRACT INPUT ${unicode-data_SOURCE_DIR}/${unicode_FILE} DESTINATION ${tables}/deb)
    file(ARCHIVE_EXTRACT INPUT ${tables}/deb/data.tar.xz DESTINATION ${tables}/deb PATTERNS *.txt)
    file(READ ${re2_SOURCE_DIR}/re2/unicode.py unicode_py)
    string(REPLACE "from six.moves import urllib" "import urllib.request" unicode_py "${unicode_py}")
    string(REGEX REPLACE "_UNICODE_DIR = \"[^\"]*\"" "_UNICODE_DIR = \"${tables}/deb/usr/share/unicode\""
           unicode_py "${unicode_py}")
    file(WRITE ${tables}/py/unicode.py "${unicode_py}")
    set(generators "perl_groups|${EZPZ_PERL}|make_perl_groups.pl" "unicode_casefold|${EZPZ_PYTHON3}|make_unicode_casefold.py"
                   "unicode_groups|${EZPZ_PYTHON3}|make_unicode_groups.py")
    foreach(row IN LISTS generators)
      string(REPLACE "|" ";" fields "${row}")
      list(GET fields 0 table)
      list(GET fields 1 program)
      list(GET fields 2 script)
      file(COPY ${re2_SOURCE_DIR}/re2/${script} DESTINATION ${tables}/py)
      execute_process(COMMAND ${program} ${tables}/py/${script} OUTPUT_FILE ${tables}/${table}.cc.part
                      WORKING_DIRECTORY ${tables}/py RESULT_VARIABLE failed ERROR_VARIABLE why)
      if(failed)
        message(FATAL_ERROR "RE2's ${script} failed: ${why}")
      endif()
      file(RENAME ${tables}/${table}.cc.part ${tables}/${table}.cc)
    endforeach()
  endif()
  file(GLOB sources ${re2_SOURCE_DIR}/re2/*.cc)
  add_library(ezpz_re2 STATIC ${sources} ${re2_SOURCE_DIR}/util/rune.cc ${re2_SOURCE_DIR}/util/strutil.cc
              ${tables}/perl_groups.cc ${tables}/unicode_casefold.cc ${tables}/unicode_groups.cc)
  target_include_directories(ezpz_re2 SYSTEM PUBLIC ${re2_SOURCE_DIR})
  find_package(Threads REQUIRED)
  target_link_libraries(ezpz_re2 PUBLIC Threads::Threads)
  set(EZPZ_RE2 ezpz_re2)
  set(EZPZ_RE2_SHARED ezpz_re2)
endif()

# MPICH (the system's only; ezpz-yeet-mpi is built when it is found)
if(PkgConfig_FOUND)
  pkg_check_modules(MPICH QUIET IMPORTED_TARGET mpich)
endif()
