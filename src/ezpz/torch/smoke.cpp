// ezpz-torch-test: the distributed smoke test behind `ezpz test`. Every rank initialises c10d through
// ezpz::torch::init(), checks an all-reduce, a broadcast and a barrier, times a small and a large
// all-reduce, and publishes its row through the rendezvous store; rank 0 prints the table (or JSON).
// Exit status: 0 when this rank's checks passed (on rank 0: when every rank's did), 1 otherwise,
// 2 for bad command-line usage.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "ezpz/torch/report.hpp"
#include "ezpz/torch/smoke_options.hpp"
#include "ezpz/torch/torch.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using ezpz::torch::Context;
using ezpz::torch::RankResult;

using Options = ezpz::torch::TestOptions;

std::string message_of(const std::exception& error) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&error)) return c10_error->what_without_backtrace();
  return error.what();
}

// 10 -> "10", 0.5 -> "0.5".
std::string format(double value) {
  std::string text = std::to_string(value);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

std::string row_key(int rank) {
  return "ezpz/test/row/" + std::to_string(rank);
}

class SmokeTest {
 public:
  SmokeTest(Context& context, const Options& options) : m_ctx(context), m_options(options) {
    m_row.rank = context.rank;
    m_row.local_rank = context.local_rank;
    m_row.node = context.node_name;
    m_row.device = context.device.str();
    m_row.backend = context.backend;
    m_row.init_seconds = context.init_seconds;
  }

  // Runs the checks (and timings), in the same order on every rank. After a failed collective the
  // rest is skipped: the ranks are no longer in step.
  void run() {
    step("all-reduce", [this] { check_allreduce(); });
    if (m_options.quick) return;
    step("broadcast", [this] { check_broadcast(); });
    step("barrier", [this] { m_ctx.process_group->barrier()->wait(); });
    step("latency", [this] { measure_latency(); });
    step("bandwidth", [this] { measure_bandwidth(); });
  }

  bool in_step() const { return m_in_step; }
  const RankResult& row() const { return m_row; }

 private:
  template <typename Body>
  void step(const char* name, Body&& body) {
    if (!m_in_step) return;
    try {
      body();
    } catch (const std::exception& error) {
      m_row.errors.push_back(std::string(name) + ": " + message_of(error));
      m_in_step = false;
    }
  }

  at::TensorOptions floats() const { return at::TensorOptions().dtype(at::kFloat).device(m_ctx.device); }

  // Makes host timings meaningful on devices whose collectives only enqueue work.
  void synchronize() const {
    if (m_ctx.device.is_cpu()) return;
    const auto* impl = c10::impl::getDeviceGuardImpl(m_ctx.device.type());
    impl->synchronizeStream(impl->getStream(m_ctx.device));
  }

  void allreduce(at::Tensor& tensor) {
    std::vector<at::Tensor> tensors{tensor};
    m_ctx.process_group->allreduce(tensors)->wait();
  }

  // Every rank contributes rank+1; each element must be exactly n(n+1)/2.
  void check_allreduce() {
    const double n = m_ctx.world_size;
    const double expected = n * (n + 1) / 2;
    auto tensor = at::full({1024}, static_cast<double>(m_ctx.rank + 1), floats());
    allreduce(tensor);
    if (m_options.fail_rank == m_ctx.rank) tensor.add_(1);  // --fail-rank: pretend the result arrived wrong
    expect_all("all-reduce (sum of rank+1)", tensor, expected);
  }

  // Rank 0 sends 1000 + i at index i; everyone else starts from -1.
  void check_broadcast() {
    const auto expected = at::arange(1000, 1000 + 4096, floats());
    auto tensor = m_ctx.rank == 0 ? expected.clone() : at::full({4096}, -1.0, floats());
    std::vector<at::Tensor> tensors{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = 0;
    m_ctx.process_group->broadcast(tensors, options)->wait();
    if (!at::equal(tensor, expected)) {
      m_row.errors.push_back(
          "broadcast from rank 0: " + std::to_string(at::ne(tensor, expected).sum().item<int64_t>()) +
          " of 4096 elements differ from what rank 0 sent");
    }
  }

  void expect_all(const std::string& what, const at::Tensor& tensor, double expected) {
    const auto cpu = tensor.to(at::kCPU);
    const double low = cpu.min().item<double>();
    const double high = cpu.max().item<double>();
    if (low != expected || high != expected) {
      m_row.errors.push_back(what + ": expected every element to be " + format(expected) + ", got values from " +
                             format(low) + " to " + format(high));
    }
  }

  template <typename Op>
  double median_seconds(int warmup, int iterations, Op&& op) {
    for (int i = 0; i < warmup; ++i) op();
    std::vector<double> times;
    for (int i = 0; i < iterations; ++i) {
      const auto start = Clock::now();
      op();
      synchronize();
      times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    return times[times.size() / 2];
  }

  void measure_latency() {
    auto tensor = at::ones({1}, floats());
    const double seconds = median_seconds(3, m_options.iterations, [&] { allreduce(tensor); });
    m_row.latency_us = seconds * 1e6;
  }

  // Algorithm bandwidth (bytes / time) of a size-mb float32 all-reduce; the result is checked too.
  void measure_bandwidth() {
    const auto count = std::max<int64_t>(1, static_cast<int64_t>(m_options.size_mb * 1024 * 1024 / 4));
    auto tensor = at::empty({count}, floats());
    const int iterations = std::max(3, m_options.iterations / 4);
    std::vector<double> times;
    for (int i = 0; i < iterations + 1; ++i) {  // the first one warms up
      tensor.fill_(1.0);
      synchronize();
      const auto start = Clock::now();
      allreduce(tensor);
      synchronize();
      if (i > 0) times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    m_row.bandwidth_gbps = static_cast<double>(count) * 4 / times[times.size() / 2] / 1e9;
    expect_all("bandwidth all-reduce (" + std::to_string(count) + " ones)", tensor, m_ctx.world_size);
  }

  Context& m_ctx;
  const Options& m_options;
  RankResult m_row;
  bool m_in_step = true;
};

// Rank 0: every rank's row from the store, waiting until the deadline for the late ones.
ezpz::torch::TestReport collect(const Context& ctx, const Options& options, const RankResult& own) {
  ezpz::torch::TestReport report;
  report.settings = {options.iterations, options.size_mb, options.quick, ezpz::torch::libtorch_version()};
  report.world_size = ctx.world_size;
  report.missing_reason = "did not report within " + format(options.timeout_s) + " s";
  report.rows.resize(static_cast<size_t>(ctx.world_size));
  report.rows[0] = own;
  const auto deadline = Clock::now() + ctx.timeout;
  for (int r = 1; r < ctx.world_size; ++r) {
    const auto key = row_key(r);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    try {
      if (left.count() > 0) ctx.store->wait({key}, left);
    } catch (const std::exception&) {
      // Timed out: reported as missing below unless the row arrived meanwhile.
    }
    if (!ctx.store->check({key})) continue;
    const auto bytes = ctx.store->get(key);
    try {
      report.rows[static_cast<size_t>(r)] = ezpz::torch::from_text(std::string(bytes.begin(), bytes.end()));
    } catch (const std::exception& error) {
      RankResult broken;
      broken.rank = r;
      broken.errors.push_back(error.what());
      report.rows[static_cast<size_t>(r)] = broken;
    }
  }
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (const auto status = ezpz::torch::parse_test_options(argc, argv, options)) return *status;

  ezpz::torch::InitOptions init_options;
  init_options.timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeout_s * 1000));
  Context ctx;
  try {
    ctx = ezpz::torch::init(init_options);
  } catch (const std::exception& error) {
    std::cerr << message_of(error) << "\n";
    return 1;
  }

  SmokeTest test(ctx, options);
  test.run();
  const RankResult& row = test.row();
  for (const auto& error : row.errors) {
    std::cerr << "ezpz-torch-test: rank " << ctx.rank << " on " << ctx.node_name << ": " << error << "\n";
  }

  int status = row.ok() ? 0 : 1;
  try {
    if (ctx.rank == 0) {
      const auto report = collect(ctx, options, row);
      std::cout << (options.json ? report.json() : report.table()) << std::flush;
      if (!report.ok()) status = 1;
    } else {
      const auto text = ezpz::torch::to_text(row);
      ctx.store->set(row_key(ctx.rank), std::vector<uint8_t>(text.begin(), text.end()));
    }
    ezpz::torch::finalize(ctx, test.in_step());
  } catch (const std::exception& error) {
    std::cerr << "ezpz-torch-test: rank " << ctx.rank << ": " << message_of(error) << "\n";
    status = 1;
  }
  return status;
}
