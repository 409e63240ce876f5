// ezpz-yeet-mpi: the MPI side of `ezpz yeet` (the ezpz binary runs it, so ezpz itself needs no MPI).
#include <mpi.h>

#include <iostream>

#include "ezpz/util/exit_codes.hpp"
#include "ezpz/yeet/mpi/finalize.hpp"
#include "ezpz/yeet/mpi/run.hpp"
#include "ezpz/yeet/options.hpp"

int main(int argc, char** argv) {
  ezpz::core::yeet::Options options;
  CLI::App app{"ezpz-yeet-mpi: copy SRC to DEST on every node over MPI (run through `ezpz yeet`).", "ezpz yeet"};
  ezpz::core::yeet::add_options(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ezpz yeet: usage error: " << e.what() << "\n";
    return ezpz::core::k_exit_usage;
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int code = ezpz::core::k_exit_user_error;
  try {
    code = ezpz::core::yeet::run_yeet(options);
  } catch (const std::exception& error) {
    std::cerr << "ezpz yeet: internal error: " << error.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, ezpz::core::k_exit_user_error);
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return ezpz::core::yeet::finalize_within(ezpz::core::yeet::k_finalize_deadline, rank, code);
}
