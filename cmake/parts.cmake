# dgd_part(<name> DEPS ...): static library dgd_<name> from src/<name>/*.cpp with
# include/ as its public include root. A part with no sources yet is an INTERFACE
# library, so the tree configures while parts are being written.
function(dgd_part name)
  cmake_parse_arguments(P "" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cpp)
  if(srcs)
    add_library(dgd_${name} STATIC ${srcs})
    target_include_directories(dgd_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(dgd_${name} PUBLIC ${P_DEPS})
    # cpprest's U() macro breaks fmt 9 (cpp-stack.md §3.2).
    target_compile_definitions(dgd_${name} PUBLIC _TURN_OFF_PLATFORM_STRING)
  else()
    add_library(dgd_${name} INTERFACE)
    target_include_directories(dgd_${name} INTERFACE ${PROJECT_SOURCE_DIR}/include)
    target_link_libraries(dgd_${name} INTERFACE ${P_DEPS})
    target_compile_definitions(dgd_${name} INTERFACE _TURN_OFF_PLATFORM_STRING)
  endif()
endfunction()

# dgd_tool(<name> DEPS ...): executable from src/cli/<name>/*.cpp (skipped while empty).
function(dgd_tool name)
  cmake_parse_arguments(P "" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cli/${name}/*.cpp)
  if(srcs)
    add_executable(${name} ${srcs})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${name} PRIVATE ${P_DEPS})
  endif()
endfunction()

# dgd_unit_tests(<dir> <target> DEPS ...): one GoogleTest binary from every
# *_test.cpp under <dir>, registered with ctest (label "unit").
function(dgd_unit_tests dir target)
  cmake_parse_arguments(P "" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${dir}/*_test.cpp)
  if(srcs)
    add_executable(${target} ${srcs})
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
    target_link_libraries(${target} PRIVATE ${P_DEPS} GTest::gtest_main GTest::gmock)
    target_compile_definitions(${target} PRIVATE
      DGD_SOURCE_DIR="${PROJECT_SOURCE_DIR}" DGD_BINARY_DIR="${PROJECT_BINARY_DIR}")
    gtest_discover_tests(${target} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
  endif()
endfunction()

# dgd_forbid_links(<target> FORBIDDEN ...): stops the configure when <target> links any of
# FORBIDDEN, directly or through its dependencies (a pure part must not reach the client's
# HTTP and TLS libraries).
function(dgd_forbid_links target)
  cmake_parse_arguments(P "" "" "FORBIDDEN" ${ARGN})
  set(queue ${target})
  set(seen)
  while(queue)
    list(POP_FRONT queue t)
    if(t IN_LIST seen OR NOT TARGET ${t})
      continue()
    endif()
    list(APPEND seen ${t})
    get_target_property(deps ${t} INTERFACE_LINK_LIBRARIES)
    if(deps)
      foreach(d ${deps})
        if(d IN_LIST P_FORBIDDEN)
          message(FATAL_ERROR "${target} must not link ${d} (reached through ${t})")
        endif()
        list(APPEND queue ${d})
      endforeach()
    endif()
  endwhile()
endfunction()
