// The pipelined broadcast: buffer slots move between a reader, the MPI main thread and a writer.
#include "ezpz/yeet/mpi/broadcast.hpp"

#include "ezpz/yeet/mpi/poll.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace ezpz::core::yeet {
namespace {

// Slot indices handed between threads. pop() blocks; try_pop() does not.
class SlotQueue {
 public:
  void push(int slot) {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_slots.push_back(slot);
    }
    m_ready.notify_one();
  }
  int pop() {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_ready.wait(lock, [this] { return !m_slots.empty(); });
    return take();
  }
  // Waits up to `timeout` for a slot.
  bool try_pop(int& slot, std::chrono::microseconds timeout) {
    std::unique_lock<std::mutex> lock(m_mutex);
    if (!m_ready.wait_for(lock, timeout, [this] { return !m_slots.empty(); })) return false;
    slot = take();
    return true;
  }

 private:
  int take() {
    int slot = m_slots.front();
    m_slots.pop_front();
    return slot;
  }
  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::deque<int> m_slots;
};

constexpr int k_stop = -1;

class Pipeline {
 public:
  Pipeline(MPI_Comm comm, const StreamPlan& plan, const StreamHooks& hooks)
      : m_comm(comm), m_plan(plan), m_hooks(hooks) {
    MPI_Comm_rank(comm, &m_rank);
    m_chunks = (plan.total_bytes + plan.chunk_bytes - 1) / plan.chunk_bytes;
    int slots = plan.depth + 2;  // the window, plus one being read and one being written
    m_buffers.assign(static_cast<std::size_t>(slots), std::vector<char>(plan.chunk_bytes));
    MPI_Comm_size(comm, &m_ranks);
    m_flights.assign(static_cast<std::size_t>(slots), Flight{});
    m_index.assign(static_cast<std::size_t>(slots), 0);
    for (int slot = 0; slot < slots; ++slot) m_free.push(slot);
  }

  void run() {
    std::thread reader, writer;
    if (m_rank == 0) reader = std::thread([this] { read_all(); });
    if (m_hooks.consume) writer = std::thread([this] { write_all(); });
    SlotQueue& source = m_rank == 0 ? m_filled : m_free;
    std::deque<int> in_flight;
    Poller poller(m_plan.share_cores);
    std::uint64_t posted = 0;
    while (posted < m_chunks || !in_flight.empty()) {
      int slot = 0;
      bool window_open = posted < m_chunks && in_flight.size() < static_cast<std::size_t>(m_plan.depth);
      if (window_open && in_flight.empty()) {
        post(source.pop(), posted++, in_flight);
        continue;
      }
      if (window_open && source.try_pop(slot, std::chrono::microseconds(0))) {
        post(slot, posted++, in_flight);
        continue;
      }
      bool moved = pass_on(in_flight);
      if (!arrived_and_passed_on(in_flight.front())) {
        if (moved)
          poller.progressed();
        else
          poller.idle();
        continue;
      }
      poller.progressed();
      finish(in_flight.front());
      in_flight.pop_front();
    }
    if (reader.joinable()) reader.join();
    if (writer.joinable()) {
      m_written.push(k_stop);
      writer.join();
    }
  }

 private:
  std::size_t size_of(std::uint64_t index) const {
    return static_cast<std::size_t>(std::min(m_plan.chunk_bytes, m_plan.total_bytes - index * m_plan.chunk_bytes));
  }

  // One chunk on its way through this rank.
  struct Flight {
    std::vector<MPI_Request> in;   // chain: a receive per piece (none on rank 0); bcast: the MPI_Ibcast
    std::vector<MPI_Request> out;  // chain: a send per piece passed on to the next rank
    std::size_t passed = 0;        // chain: pieces passed on (or, without a next rank, arrived)
    std::size_t pieces = 0;
  };

  bool chain() const { return m_plan.route == Route::chain; }
  bool has_next() const { return m_rank + 1 < m_ranks; }
  std::size_t piece_size() const { return static_cast<std::size_t>(std::min(k_piece_bytes, m_plan.chunk_bytes)); }
  std::pair<char*, int> piece(std::size_t slot, std::size_t i) {
    std::size_t size = size_of(m_index[slot]);
    std::size_t offset = i * piece_size();
    return {m_buffers[slot].data() + offset, static_cast<int>(std::min(piece_size(), size - offset))};
  }

  void post(int slot, std::uint64_t index, std::deque<int>& in_flight) {
    auto s = static_cast<std::size_t>(slot);
    m_index[s] = index;
    Flight& flight = m_flights[s];
    flight = Flight{};
    if (!chain()) {
      flight.in.assign(1, MPI_REQUEST_NULL);
      MPI_Ibcast(m_buffers[s].data(), static_cast<int>(size_of(index)), MPI_BYTE, 0, m_comm, &flight.in[0]);
    } else {
      flight.pieces = (size_of(index) + piece_size() - 1) / piece_size();
      flight.out.reserve(flight.pieces);
      // Rank 0 has the chunk: every piece goes out at once. The others receive every piece from the
      // rank before them; pass_on sends each one on in order. One tag: MPI keeps the order of the
      // messages between two ranks, and both sides post pieces and chunks in stream order.
      for (std::size_t i = 0; i < flight.pieces; ++i) {
        auto [data, size] = piece(s, i);
        if (m_rank == 0) {
          if (has_next()) MPI_Isend(data, size, MPI_BYTE, 1, 0, m_comm, &flight.out.emplace_back());
        } else {
          MPI_Irecv(data, size, MPI_BYTE, m_rank - 1, 0, m_comm, &flight.in.emplace_back());
        }
      }
      if (m_rank == 0) flight.passed = flight.pieces;
    }
    in_flight.push_back(slot);
  }

  // Chain: sends on every piece that has arrived, in stream order (a piece of a later chunk never
  // overtakes one of an earlier chunk). Returns whether a piece moved.
  bool pass_on(const std::deque<int>& in_flight) {
    if (!chain() || m_rank == 0) return false;
    bool moved = false;
    for (int slot : in_flight) {
      auto s = static_cast<std::size_t>(slot);
      Flight& flight = m_flights[s];
      while (flight.passed < flight.pieces) {
        int arrived = 0;
        MPI_Test(&flight.in[flight.passed], &arrived, MPI_STATUS_IGNORE);
        if (!arrived) return moved;
        if (has_next()) {
          auto [data, size] = piece(s, flight.passed);
          MPI_Isend(data, size, MPI_BYTE, m_rank + 1, 0, m_comm, &flight.out.emplace_back());
        }
        ++flight.passed;
        moved = true;
      }
    }
    return moved;
  }

  // The chunk in `slot` is complete here and no longer needed by a send.
  bool arrived_and_passed_on(int slot) {
    Flight& flight = m_flights[static_cast<std::size_t>(slot)];
    int done = 0;
    if (!chain()) {
      MPI_Test(&flight.in[0], &done, MPI_STATUS_IGNORE);
      return done != 0;
    }
    if (flight.passed < flight.pieces) return false;
    MPI_Testall(static_cast<int>(flight.out.size()), flight.out.data(), &done, MPI_STATUSES_IGNORE);
    return done != 0;
  }

  void finish(int slot) {
    auto s = static_cast<std::size_t>(slot);
    std::size_t size = size_of(m_index[s]);
    if (m_rank == 0 && m_hooks.sent) m_hooks.sent(size);
    if (m_rank != 0 && m_hooks.arrived) m_hooks.arrived(m_index[s], m_buffers[s].data(), size);
    (m_hooks.consume ? m_written : m_free).push(slot);
  }

  void read_all() {
    for (std::uint64_t index = 0; index < m_chunks; ++index) {
      int slot = m_free.pop();
      auto s = static_cast<std::size_t>(slot);
      m_index[s] = index;
      m_hooks.fill(m_buffers[s].data(), size_of(index));
      m_filled.push(slot);
    }
  }

  void write_all() {
    for (int slot = m_written.pop(); slot != k_stop; slot = m_written.pop()) {
      auto s = static_cast<std::size_t>(slot);
      m_hooks.consume(m_buffers[s].data(), size_of(m_index[s]));
      m_free.push(slot);
    }
  }

  MPI_Comm m_comm;
  StreamPlan m_plan;
  const StreamHooks& m_hooks;
  int m_rank = 0;
  int m_ranks = 1;
  std::uint64_t m_chunks = 0;
  std::vector<std::vector<char>> m_buffers;
  std::vector<Flight> m_flights;
  std::vector<std::uint64_t> m_index;
  SlotQueue m_free, m_filled, m_written;
};

}  // namespace

void broadcast_stream(MPI_Comm comm, const StreamPlan& plan, const StreamHooks& hooks) {
  if (plan.total_bytes == 0) return;
  Pipeline(comm, plan, hooks).run();
}

}  // namespace ezpz::core::yeet
