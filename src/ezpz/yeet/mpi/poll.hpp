// How yeet's MPI thread waits: MPI_Test in a loop that yields the CPU between tests. MPICH moves a
// non-blocking collective on only inside MPI calls, so where each rank has cores of its own the loop
// never sleeps: every step of the broadcast's algorithm (thousands of ring steps per chunk at 4096
// nodes, bench/README.md "yeet") is picked up at once. Where ranks outnumber the cores (several
// "nodes" on one machine, as in the tests and benchmarks), yield hands the CPU to the other ranks'
// readers and writers, and after a stretch without progress the loop naps, so a long wait (rank 0
// scanning the source, the final gather) does not take CPU from ranks that still work.
#pragma once

#include <mpi.h>

#include <chrono>
#include <thread>

namespace ezpz::core::yeet {

class Poller {
 public:
  // `share_cores`: this node has fewer cores than yeet has busy threads (main and writer per rank).
  explicit Poller(bool share_cores) : m_share_cores(share_cores) {}

  // Call after a test that found nothing to do.
  void idle() {
    if (!m_share_cores || ++m_idle < k_spins) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(k_nap);
    }
  }
  // Call after a test that made progress.
  void progressed() { m_idle = 0; }

 private:
  static constexpr int k_spins = 2000;
  static constexpr std::chrono::microseconds k_nap{50};
  bool m_share_cores;
  int m_idle = 0;
};

// Waits for `request` the way Poller does (MPI_Wait would spin at full speed in MPICH).
inline void wait_politely(MPI_Request& request, bool share_cores) {
  Poller poller(share_cores);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    poller.idle();
  }
}

}  // namespace ezpz::core::yeet
