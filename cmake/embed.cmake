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
