#include "ezpz/yeet/mpi/finalize.hpp"

#include <mpi.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>

namespace ezpz::core::yeet {

int finalize_within(std::chrono::milliseconds deadline, int rank, int code) {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mutex);
    if (finished.wait_for(lock, deadline, [&] { return done; })) return;
    std::cerr << "ezpz yeet: rank " << rank << ": MPI_Finalize did not return within " << deadline.count()
              << " ms (a known hang of UCX over TCP, openucx/ucx#8738); leaving with exit code " << code
              << ", which every rank agreed on\n";
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(code);
  });
  MPI_Finalize();
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  finished.notify_one();
  watchdog.join();
  return code;
}

}  // namespace ezpz::core::yeet
