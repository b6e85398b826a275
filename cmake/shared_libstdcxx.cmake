# The worker must use the one shared libstdc++ that libtorch and Python's extensions load. Some
# toolchains (seen: a g++ 13 installed under /opt/gcc on the GPU machines the device tool lends) ship
# libstdc++.a without libstdc++.so, so the linker silently puts a private copy of libstdc++ into the
# executable; its definitions then interpose on libtorch's, and the first std::stringstream that
# TorchScript destroys frees the shared library's classic locale ("free(): invalid pointer", SIGABRT
# at the worker's first request). Where the compiler would link libstdc++ statically, link against
# the system's shared runtime instead, through a link in the build folder searched first.
function(mmdiff_use_shared_libstdcxx)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    return()
  endif()
  foreach(kind so a)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.${kind}
                    OUTPUT_VARIABLE _path OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(_${kind} "")
    if(IS_ABSOLUTE "${_path}")
      get_filename_component(_${kind} "${_path}" DIRECTORY)
    endif()
  endforeach()
  # Shared when libstdc++.so is found, in the folder where the archive is (or with no archive).
  if(_so AND (NOT _a OR _so STREQUAL _a))
    return()
  endif()
  find_file(MMDIFF_LIBSTDCXX_RUNTIME libstdc++.so.6
            PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE} /lib/${CMAKE_LIBRARY_ARCHITECTURE} /usr/lib64 /usr/lib
            NO_DEFAULT_PATH)
  if(NOT MMDIFF_LIBSTDCXX_RUNTIME)
    message(FATAL_ERROR "${CMAKE_CXX_COMPILER} would link libstdc++ statically (no libstdc++.so beside "
                        "${_a}/libstdc++.a) and no shared libstdc++.so.6 was found: the worker would crash "
                        "at its first request. Use a compiler with a shared libstdc++ (e.g. the system g++).")
  endif()
  set(_dir ${CMAKE_BINARY_DIR}/shared-libstdcxx)
  file(MAKE_DIRECTORY ${_dir})
  file(CREATE_LINK ${MMDIFF_LIBSTDCXX_RUNTIME} ${_dir}/libstdc++.so SYMBOLIC)
  add_link_options(-L${_dir})
  message(STATUS "mmdiff: ${CMAKE_CXX_COMPILER} has no shared libstdc++; linking ${MMDIFF_LIBSTDCXX_RUNTIME}")
endfunction()
