// How yeet's MPI thread waits: MPI_Test in a loop that yields the CPU between tests and sleeps only
// after a stretch without progress. On a node of its own, yield returns at once, so each step of a
// collective's algorithm is picked up without delay (a fixed sleep per test would add up over the
// thousands of steps of a ring at 4096 nodes); where ranks share CPUs (several "nodes" on one machine,
// or the reader and writer threads), yield hands the CPU to them, and a long wait (rank 0 scanning the
// source, the final gather) does not burn a core.
#pragma once

#include <mpi.h>

#include <chrono>
#include <thread>

namespace ezpz::yeet {

class Poller {
 public:
  // Call after a test that found nothing to do.
  void idle() {
    if (++m_idle < k_spins) {
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
  int m_idle = 0;
};

// Waits for `request` the way Poller does (MPI_Wait would spin at full speed in MPICH).
inline void wait_politely(MPI_Request& request) {
  Poller poller;
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    poller.idle();
  }
}

}  // namespace ezpz::yeet
