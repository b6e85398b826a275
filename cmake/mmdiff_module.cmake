# Helpers that declare one library per module (mmdiff_<name>, alias mmdiff::<name>) and its tests.

# mmdiff::warnings: the one set of warning flags, linked PRIVATE by every target mmdiff builds from
# its own C++ (modules, tests, the CLI, the worker, the fuzz targets, the bench). With
# MMDIFF_WERROR (scripts/setup turns it on, so CI and every checkout build with it), a warning
# fails the build.
add_library(mmdiff_warnings INTERFACE)
add_library(mmdiff::warnings ALIAS mmdiff_warnings)
target_compile_options(mmdiff_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers>
  # clang with libstdc++ 12: std::stable_sort's get_temporary_buffer is deprecated inside the
  # library's own code; a warning, never an error, of ours.
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:Clang>>:-Wno-error=deprecated-declarations>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${MMDIFF_WERROR}>>:-Werror>)

# mmdiff_module(NAME SOURCES ... DEPS ...): a static library rooted at the repository top.
function(mmdiff_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS" ${ARGN})
  add_library(mmdiff_${name} STATIC ${M_SOURCES})
  add_library(mmdiff::${name} ALIAS mmdiff_${name})
  target_include_directories(mmdiff_${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  target_link_libraries(mmdiff_${name} PRIVATE mmdiff::warnings)
  target_link_libraries(mmdiff_${name} PUBLIC ${M_DEPS})
  if(MMDIFF_FUZZERS)
    target_compile_options(mmdiff_${name} PRIVATE -fsanitize=fuzzer-no-link)  # libFuzzer's coverage
  endif()
  mmdiff_sanitized_at_o0(mmdiff_${name} ${name})
endfunction()

# Under the sanitizers (build-asan), a module no test or fuzzer waits on compiles at -O0: with ASan
# and UBSan, -O2 doubles its compile time (fuzz_command.cc: 15.2 s against 5.8 s, 2026-12-07) for
# speed only the modules in MMDIFF_SANITIZE_OPTIMIZED use (the generator, the reference, the oracles
# and what they read and verify).
set(MMDIFF_SANITIZE_OPTIMIZED support ir gen kernels oracles)
function(mmdiff_sanitized_at_o0 target name)
  if(MMDIFF_SANITIZE AND NOT name IN_LIST MMDIFF_SANITIZE_OPTIMIZED)
    target_compile_options(${target} PRIVATE -O0)
  endif()
endfunction()

# mmdiff_unit_test(NAME [MAIN_BUILD_ONLY] SOURCES ... DEPS ...): a gtest binary registered with ctest (label
# quick_unit: `ctest -L unit` and `ctest -L quick` select it, -L being a regular expression; 60 s
# each, where the slowest takes about 4 s; 180 s under the sanitizers, where the slowest,
# Generator.HundredThousandProgramsVerifyAndRoundTrip, took 35.6 s alone on 2026-11-26 and ran
# past 60 s with the other tests beside it). MAIN_BUILD_ONLY: a test of code only the main build
# has (LibTorch's users, the CUDA kernels); the others are left out with MMDIFF_ALL_UNIT_TESTS OFF,
# as the asan build runs them.
function(mmdiff_unit_test name)
  cmake_parse_arguments(T "MAIN_BUILD_ONLY" "" "SOURCES;DEPS" ${ARGN})
  if(NOT MMDIFF_BUILD_TESTS OR (NOT MMDIFF_ALL_UNIT_TESTS AND NOT T_MAIN_BUILD_ONLY))
    return()
  endif()
  add_executable(${name} ${T_SOURCES})
  # The tests' own code at -O1 (the code under test keeps its flags): half the compile time of
  # -O2 -g for a test file; under the sanitizers at -O0, half again (report_test.cc: 10.9 s at
  # -O1, 5.2 s at -O0 with ASan and UBSan, 2026-12-07).
  if(MMDIFF_SANITIZE)
    target_compile_options(${name} PRIVATE -O0)
  else()
    target_compile_options(${name} PRIVATE -O1)
  endif()
  target_link_libraries(${name} PRIVATE ${T_DEPS} GTest::gtest GTest::gtest_main)
  target_link_libraries(${name} PRIVATE mmdiff::warnings)
  set(timeout 60)
  if(MMDIFF_SANITIZE)
    set(timeout 180)
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS quick_unit TIMEOUT ${timeout} DISCOVERY_TIMEOUT 60)
endfunction()

# mmdiff_python_test(NAME FILE_test.py [TORCH]): a Python unittest file run by ctest with
# MMDIFF_TEST_PYTHON (the top-level CMakeLists.txt picks it), as test NAME (label quick_unit). Its
# folder and src/ir/python (embedded_text.py) are on its path; it writes no compiled files next to
# the sources. TORCH: it imports torch, so it runs only with the venv (MMDIFF_WITH_TORCH), and has
# 120 s (importing torch takes seconds, and many more on a busy machine) rather than 60.
function(mmdiff_python_test name file)
  cmake_parse_arguments(T "TORCH" "" "" ${ARGN})
  if(NOT MMDIFF_BUILD_TESTS OR NOT MMDIFF_TEST_PYTHON OR (T_TORCH AND NOT MMDIFF_WITH_TORCH))
    return()
  endif()
  get_filename_component(file "${file}" ABSOLUTE)
  add_test(NAME ${name} COMMAND ${MMDIFF_TEST_PYTHON} ${file} -v)
  set(timeout 60)
  if(T_TORCH)
    set(timeout 120)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS quick_unit TIMEOUT ${timeout}
                       ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/src/ir/python;PYTHONDONTWRITEBYTECODE=1")
endfunction()

# mmdiff_embed_python(TARGET FILE.py ...): Python sources embedded in C++ at build time. Each file's
# text below its marker line (cmake/embed_python.cmake says which) becomes the header
# generated/mmdiff/python/<name>.h, which defines mmdiff::embedded::k<Name>Py (a std::string_view;
# root_cause.py gives mmdiff/python/root_cause.h and kRootCausePy). The header is made again
# whenever the .py file changes, and so are the objects that include it; TARGET makes it before its
# own sources compile, and so before those of every module that depends on TARGET. File names must
# be unique across the project.
function(mmdiff_embed_python target)
  foreach(py IN LISTS ARGN)
    get_filename_component(py "${py}" ABSOLUTE)
    get_filename_component(stem "${py}" NAME_WE)
    get_property(taken GLOBAL PROPERTY MMDIFF_EMBEDDED_PYTHON)
    if(stem IN_LIST taken)
      message(FATAL_ERROR "mmdiff_embed_python: a second ${stem}.py (${py}): the header names must be unique")
    endif()
    set_property(GLOBAL APPEND PROPERTY MMDIFF_EMBEDDED_PYTHON ${stem})
    set(name k)
    string(REPLACE "_" ";" words "${stem}")
    foreach(word IN LISTS words)
      string(SUBSTRING "${word}" 0 1 first)
      string(SUBSTRING "${word}" 1 -1 rest)
      string(TOUPPER "${first}" first)
      string(APPEND name "${first}${rest}")
    endforeach()
    set(header ${PROJECT_BINARY_DIR}/generated/mmdiff/python/${stem}.h)
    add_custom_command(
      OUTPUT ${header}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${py} -DOUTPUT=${header} -DNAME=${name}Py
              -P ${PROJECT_SOURCE_DIR}/cmake/embed_python.cmake
      DEPENDS ${py} ${PROJECT_SOURCE_DIR}/cmake/embed_python.cmake
      COMMENT "Embedding ${stem}.py as mmdiff::embedded::${name}Py"
      VERBATIM)
    target_sources(${target} PRIVATE ${header})
  endforeach()
endfunction()
