# dgd_embed(<target> <namespace> <base_dir> <glob>...): compiles every file under
# <base_dir> matching the globs into <target> as
#   const std::vector<dgd::EmbeddedFile>& <namespace>::files();
# (see include/dgd/common/embedded.h), so binaries carry the recipe data and the
# same files on disk stay the single source (DESIGN.md §5).
function(dgd_embed target ns base)
  set(globs ${ARGN})
  set(files)
  foreach(g ${globs})
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${base}/${g})
    list(APPEND files ${found})
  endforeach()
  list(SORT files)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${ns}.cpp)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNS=${ns} -DBASE=${base} "-DFILES=${files}"
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_gen.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/embed_gen.cmake
    COMMENT "Embedding ${ns} data files" VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()

# dgd_embed_yaml_as_json(<target> <namespace> <base_dir> <glob>...): like dgd_embed, but
# each YAML file is converted to compact JSON at build time by dgd-yaml-to-json-embed
# (src/buildtools/), which uses the project's own YAML reader. Parsing JSON at run time is
# an order of magnitude cheaper than parsing YAML (docs/benchmarks.md, render).
function(dgd_embed_yaml_as_json target ns base)
  set(files)
  foreach(g ${ARGN})
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${base}/${g})
    list(APPEND files ${found})
  endforeach()
  list(SORT files)
  string(REPLACE "::" "_" stem ${ns})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${stem}.cpp)
  add_custom_command(OUTPUT ${out}
    # A build step must not fail on a sanitizer build's exit-time leak report.
    COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 $<TARGET_FILE:dgd-yaml-to-json-embed>
            ${out} ${ns} ${base} ${files}
    DEPENDS ${files} dgd-yaml-to-json-embed
    COMMENT "Embedding ${ns} (YAML compiled to JSON)" VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
