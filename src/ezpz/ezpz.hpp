// ezpz/ezpz.hpp: the whole public API of the ezpz library (docs/api.md).
//   catalog.hpp  the systems ezpz knows, and detection
//   job.hpp      Spec → resolve (with every value's origin) → validate → render
//   jobs.hpp     submit, status, cancel through a replaceable ProcessRunner (process.hpp)
//   runtime.hpp  a rank's identity, device, backend and rendezvous, from its environment
// Every call throws ezpz::Error (diagnostic.hpp) for a problem the caller can fix, and nothing else
// for it; std::bad_alloc and std::system_error may still come from below.
#pragma once

#include "ezpz/catalog.hpp"
#include "ezpz/diagnostic.hpp"
#include "ezpz/job.hpp"
#include "ezpz/jobs.hpp"
#include "ezpz/process.hpp"
#include "ezpz/runtime.hpp"
#include "ezpz/value.hpp"
#include "ezpz/version.hpp"
