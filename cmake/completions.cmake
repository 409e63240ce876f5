# Man pages and shell completions (issue 26), made at build time by the built ezpz from its own command
# line (`ezpz man`, `ezpz completion`) into ${CMAKE_BINARY_DIR}/share with the install layout, which the
# release tarball and the wheel copy as it is, and installed from there under the same relative paths.
set(EZPZ_SHARE_DIR ${CMAKE_BINARY_DIR}/share)
set(EZPZ_COMPLETION_FILES
    ${EZPZ_SHARE_DIR}/bash-completion/completions/ezpz
    ${EZPZ_SHARE_DIR}/zsh/site-functions/_ezpz
    ${EZPZ_SHARE_DIR}/fish/vendor_completions.d/ezpz.fish)
# One page per command (ezpz-COMMAND.1): the commands are known only to the binary, so ezpz.1 stands for
# the set in OUTPUT and the script writes them all.
add_custom_command(
  OUTPUT ${EZPZ_COMPLETION_FILES} ${EZPZ_SHARE_DIR}/man/man1/ezpz.1
  COMMAND ${CMAKE_COMMAND} -DEZPZ=$<TARGET_FILE:ezpz> -DSHARE_DIR=${EZPZ_SHARE_DIR}
          -P ${CMAKE_CURRENT_LIST_DIR}/generate_completions.cmake
  DEPENDS ezpz ${CMAKE_CURRENT_LIST_DIR}/generate_completions.cmake
  COMMENT "Generating the man pages and shell completions from ezpz's command line"
  VERBATIM)
add_custom_target(ezpz_man_and_completions ALL DEPENDS ${EZPZ_COMPLETION_FILES} ${EZPZ_SHARE_DIR}/man/man1/ezpz.1)

install(DIRECTORY ${EZPZ_SHARE_DIR}/man/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime
        FILES_MATCHING PATTERN "*.1")
install(FILES ${EZPZ_SHARE_DIR}/bash-completion/completions/ezpz
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT runtime)
install(FILES ${EZPZ_SHARE_DIR}/zsh/site-functions/_ezpz
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions COMPONENT runtime)
install(FILES ${EZPZ_SHARE_DIR}/fish/vendor_completions.d/ezpz.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d COMPONENT runtime)
