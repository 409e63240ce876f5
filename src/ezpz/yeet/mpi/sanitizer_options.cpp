// Only in sanitizer builds (EZPZ_SANITIZE): MPI_Init_thread leaves hwloc's plugin allocations behind,
// in a module it has unloaded by exit, so LeakSanitizer reports them with no name to suppress them by.
// Unwinding every allocation fully (not by frame pointers, which stop in the unloaded module) reaches
// libhwloc's frames, and those leaks are MPICH's, not ours. Leaks in yeet's own code are still found.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EZPZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define EZPZ_ASAN 1
#endif

#ifdef EZPZ_ASAN
extern "C" const char* __asan_default_options() {
  return "fast_unwind_on_malloc=0";
}
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libhwloc.so\n";
}
#endif
