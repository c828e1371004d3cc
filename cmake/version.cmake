# The version the binaries print (`--version`) and export (dgd_operator_build_info):
# the project version, and `git describe` of the source tree when it is a git checkout
# with git installed. Read at configure time only: a build never runs git or reaches a
# network, and a tree without git builds with the project version alone.
set(DGD_GIT_DESCRIBE "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --tags --always --dirty
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    OUTPUT_VARIABLE DGD_GIT_DESCRIBE OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET RESULT_VARIABLE dgd_git_rc)
  if(NOT dgd_git_rc EQUAL 0)
    set(DGD_GIT_DESCRIBE "")
  endif()
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/build_version.h.in ${PROJECT_BINARY_DIR}/generated/dgd/build_version.h @ONLY)

# dgd_use_build_version(<target>): <target> may #include "dgd/build_version.h".
function(dgd_use_build_version target)
  if(TARGET ${target})
    target_include_directories(${target} PRIVATE ${PROJECT_BINARY_DIR}/generated)
  endif()
endfunction()
