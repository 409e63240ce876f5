// The pipelined broadcast of the content stream: rank 0 reads chunk k+1 on a reader thread while
// chunk k is in flight (several at once) and every rank writes chunk k-1 on a writer thread. Only the
// main thread calls MPI (MPI_THREAD_FUNNELED). A chunk travels by Route::chain (rank r receives it
// from rank r-1 in pieces of k_piece_bytes and passes each piece on to rank r+1 as soon as it is in,
// so every link carries the stream once: the time is about S/B plus one piece per hop, where a tree
// sends every byte from rank 0 several times) or by Route::bcast (MPI_Ibcast). See bench/README.md,
// "scale".
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>

#include "ezpz/yeet/options.hpp"

namespace ezpz::core::yeet {

// The chain passes chunks on in pieces of this size (smaller when the chunk is): a piece's time on a
// link is what each hop adds to the whole (8.4 ms at 250 Mbit/s, 10 µs at 25 GB/s).
inline constexpr std::uint64_t k_piece_bytes = 256u << 10;

struct StreamPlan {
  std::uint64_t total_bytes = 0;
  std::uint64_t chunk_bytes = 4u << 20;
  int depth = 4;  // chunks in flight at once
  Route route = Route::chain;
  bool share_cores = false;  // ranks outnumber this node's cores (mpi/poll.hpp)
};

struct StreamHooks {
  // Rank 0, reader thread: fills the next `size` bytes of the stream, in order. Must not throw.
  std::function<void(char* data, std::size_t size)> fill;
  // Writer thread, every rank that keeps the bytes (empty: the bytes are dropped). Must not throw.
  std::function<void(const char* data, std::size_t size)> consume;
  // Main thread, rank 0: another `bytes` have been broadcast (progress).
  std::function<void(std::uint64_t bytes)> sent;
  // Main thread, after chunk `index` arrived and before it is written: a test-only fault hook.
  std::function<void(std::uint64_t index, char* data, std::size_t size)> arrived;
};

// Streams `plan.total_bytes` from rank 0 of `comm` to every rank of `comm`. Collective over `comm`.
void broadcast_stream(MPI_Comm comm, const StreamPlan& plan, const StreamHooks& hooks);

}  // namespace ezpz::core::yeet
