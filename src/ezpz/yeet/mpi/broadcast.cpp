// The pipelined broadcast: buffer slots move between a reader, the MPI main thread and a writer.
#include "ezpz/yeet/mpi/broadcast.hpp"

#include "ezpz/yeet/mpi/poll.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
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
    m_requests.assign(static_cast<std::size_t>(slots), MPI_REQUEST_NULL);
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
      int done = 0;
      MPI_Test(&m_requests[static_cast<std::size_t>(in_flight.front())], &done, MPI_STATUS_IGNORE);
      if (!done) {
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

  void post(int slot, std::uint64_t index, std::deque<int>& in_flight) {
    auto s = static_cast<std::size_t>(slot);
    m_index[s] = index;
    MPI_Ibcast(m_buffers[s].data(), static_cast<int>(size_of(index)), MPI_BYTE, 0, m_comm, &m_requests[s]);
    in_flight.push_back(slot);
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
  std::uint64_t m_chunks = 0;
  std::vector<std::vector<char>> m_buffers;
  std::vector<MPI_Request> m_requests;
  std::vector<std::uint64_t> m_index;
  SlotQueue m_free, m_filled, m_written;
};

}  // namespace

void broadcast_stream(MPI_Comm comm, const StreamPlan& plan, const StreamHooks& hooks) {
  if (plan.total_bytes == 0) return;
  Pipeline(comm, plan, hooks).run();
}

}  // namespace ezpz::core::yeet
