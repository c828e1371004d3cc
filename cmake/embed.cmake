# dgd_embed(<target> <namespace> <base_dir> <glob>...): compiles every file under
# <base_dir> matching the globs (recursively) into <target> as
#   const std::vector<dgd::EmbeddedFile>& <namespace>::files();
# (see include/dgd/common/embedded.h), once: each file's text, and for a `.yaml` file the
# JSON it parses to, converted at build time by dgd-embed-files (src/buildtools/) with the
# project's own YAML reader. The files on disk stay the single source (DESIGN.md §5).
function(dgd_embed target ns base)
  set(files)
  foreach(g ${ARGN})
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${base}/${g})
    list(APPEND files ${found})
  endforeach()
  list(REMOVE_DUPLICATES files)
  list(SORT files)
  string(REPLACE "::" "_" stem ${ns})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${stem}.cpp)
  add_custom_command(OUTPUT ${out}
    # A build step must not fail on a sanitizer build's exit-time leak report.
    COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 $<TARGET_FILE:dgd-embed-files>
            ${out} ${ns} ${base} ${files}
    DEPENDS ${files} dgd-embed-files
    COMMENT "Embedding ${ns} data files" VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
