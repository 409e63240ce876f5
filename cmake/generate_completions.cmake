# Run at build time (cmake/completions.cmake): writes what the built ezpz prints, its man pages and
# completion scripts, into SHARE_DIR with the install layout. cmake -DEZPZ=<ezpz> -DSHARE_DIR=<dir> -P …
cmake_minimum_required(VERSION 3.20)

# Only the binary's own definitions: no profile or setting of whoever builds it.
set(ENV{HOME} /nonexistent)
set(ENV{EZPZ_SYSTEMS_PATH} "")

# ezpz_print(FILE ARGS…): FILE is the standard output of `ezpz ARGS…`, written whole or not at all.
function(ezpz_print file)
  get_filename_component(directory ${file} DIRECTORY)
  file(MAKE_DIRECTORY ${directory})
  execute_process(COMMAND ${EZPZ} ${ARGN} OUTPUT_FILE ${file}.tmp ERROR_VARIABLE error RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    file(REMOVE ${file}.tmp)
    message(FATAL_ERROR "'ezpz ${ARGN}' failed (${status}): ${error}")
  endif()
  file(RENAME ${file}.tmp ${file})
endfunction()

ezpz_print(${SHARE_DIR}/bash-completion/completions/ezpz completion bash)
ezpz_print(${SHARE_DIR}/zsh/site-functions/_ezpz completion zsh)
ezpz_print(${SHARE_DIR}/fish/vendor_completions.d/ezpz.fish completion fish)

# The pages of commands that are gone must not stay behind to be installed.
file(GLOB stale ${SHARE_DIR}/man/man1/*.1)
if(stale)
  file(REMOVE ${stale})
endif()
execute_process(COMMAND ${EZPZ} man --list OUTPUT_VARIABLE commands RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "'ezpz man --list' failed (${status})")
endif()
string(REPLACE "\n" ";" commands "${commands}")
foreach(command ${commands})
  ezpz_print(${SHARE_DIR}/man/man1/ezpz-${command}.1 man ${command})
endforeach()
ezpz_print(${SHARE_DIR}/man/man1/ezpz.1 man)
