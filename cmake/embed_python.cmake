# Embeds a Python source in C++: the text below the file's marker line becomes a C++ header that
# defines it as a constant, byte for byte. Run as a script by mmdiff_embed_python
# (cmake/mmdiff_module.cmake) whenever the .py file changes:
#   cmake -DINPUT=<file.py> -DOUTPUT=<header.h> -DNAME=<kConstant> -P cmake/embed_python.cmake
# The header defines mmdiff::embedded::<NAME>, a std::string_view whose data() ends in a NUL (for
# CPython's PyRun_String). Every byte is written as a \xNN escape, so no content can end it early; a
# file without exactly one marker line, or with a NUL byte (which Python rejects too), fails the
# build with a message naming the file. The marker is also in src/ir/python/embedded_text.py, which
# reads the same text for the Python tests.
cmake_minimum_required(VERSION 3.25)

set(marker "# ---- embedded from here on (cmake/embed_python.cmake) ----")
foreach(var INPUT OUTPUT NAME)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_python.cmake: -D${var}=... is missing")
  endif()
endforeach()
if(NOT NAME MATCHES "^k[A-Za-z0-9]+$")
  message(FATAL_ERROR "embed_python.cmake: NAME must be a C++ constant name such as kRootCausePy, not '${NAME}'")
endif()
if(NOT EXISTS "${INPUT}")
  message(FATAL_ERROR "embed_python.cmake: no such file: ${INPUT}")
endif()

# Every byte as a \xNN escape; a NUL would end the text for PyRun_String (and CMake's strings).
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "(..)" "\\\\x\\1" bytes "${hex}")
string(FIND "${bytes}" "\\x00" nul)  # a backslash starts each escape, so a match is a whole byte
if(NOT nul EQUAL -1)
  math(EXPR nul "${nul} / 4")
  message(FATAL_ERROR "${INPUT}: a NUL byte at offset ${nul}: a Python source cannot hold one")
endif()

# The marker: once, on a line of its own (ending in LF or CRLF).
file(READ "${INPUT}" text)
string(FIND "${text}" "${marker}" at)
string(FIND "${text}" "${marker}" last REVERSE)
if(at EQUAL -1)
  message(FATAL_ERROR "${INPUT}: no line '${marker}' above the text to embed")
elseif(NOT at EQUAL last)
  message(FATAL_ERROR "${INPUT}: the line '${marker}' is there twice (at bytes ${at} and ${last})")
endif()
string(LENGTH "${marker}" offset)
math(EXPR offset "${at} + ${offset}")
string(SUBSTRING "${text}" ${offset} 2 after)
set(before "\n")
if(at GREATER 0)
  math(EXPR previous "${at} - 1")
  string(SUBSTRING "${text}" ${previous} 1 before)
endif()
if(NOT before STREQUAL "\n" OR NOT after MATCHES "^\r?\n")
  message(FATAL_ERROR "${INPUT}: the marker '${marker}' must be a line of its own")
endif()
string(LENGTH "${CMAKE_MATCH_0}" newline)
math(EXPR offset "${offset} + ${newline}")

# The bytes below the marker line as string literals of 16 escapes each (NUL-terminated, as
# every string literal is).
math(EXPR skip "${offset} * 4")
string(SUBSTRING "${bytes}" ${skip} -1 bytes)
string(LENGTH "${bytes}" size)
math(EXPR size "${size} / 4")
string(REPEAT "\\\\x.." 16 sixteen)
string(REGEX REPLACE "(${sixteen})" "\\1\"\n    \"" bytes "${bytes}")
file(RELATIVE_PATH source "${CMAKE_CURRENT_LIST_DIR}/.." "${INPUT}")
set(header "// Generated from ${source} (the text below its marker line, ${size} bytes) by
// cmake/embed_python.cmake: edit the .py file, not this one.
#pragma once

#include <string_view>

namespace mmdiff::embedded {

inline constexpr char ${NAME}Bytes[] =
    \"${bytes}\";
inline constexpr std::string_view ${NAME}(${NAME}Bytes, sizeof(${NAME}Bytes) - 1);

}  // namespace mmdiff::embedded
")
file(WRITE "${OUTPUT}" "${header}")
