// The ezpz command: everything happens in run_cli.
#include "ezpz/cli/cli.hpp"

int main(int argc, char** argv) {
  return ezpz::core::run_cli(argc, argv);
}
