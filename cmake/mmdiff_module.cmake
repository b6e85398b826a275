# Helpers that declare one library per module (mmdiff_<name>, alias mmdiff::<name>) and its tests.

# mmdiff_module(NAME SOURCES ... DEPS ...): a static library rooted at the repository top.
function(mmdiff_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS" ${ARGN})
  add_library(mmdiff_${name} STATIC ${M_SOURCES})
  add_library(mmdiff::${name} ALIAS mmdiff_${name})
  target_include_directories(mmdiff_${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  target_compile_options(mmdiff_${name} PRIVATE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
  target_link_libraries(mmdiff_${name} PUBLIC ${M_DEPS})
endfunction()

# mmdiff_unit_test(NAME SOURCES ... DEPS ...): a gtest binary registered with ctest (label "unit").
function(mmdiff_unit_test name)
  if(NOT MMDIFF_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_options(${name} PRIVATE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
  gtest_discover_tests(${name} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
endfunction()
