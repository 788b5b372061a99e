# SPDX-License-Identifier: BSD-3-Clause
# The library, one object library per layer (src/<layer>), in the order and
# with the edges of src/layers.txt. Each layer compiles with an include path
# that holds only the public core headers (mpi.h only for src/mpi) and the
# folders of the layers it may use (a directory of links under the build
# tree), so a source that includes a header of a layer above its own does
# not compile.
# Defines ump_<layer> for every layer and UMP_LAYER_OBJECTS, the objects of
# them all.
file(STRINGS ${CMAKE_SOURCE_DIR}/src/layers.txt _ump_layer_lines REGEX "^[a-z]")
file(GLOB _ump_public_headers ${CMAKE_SOURCE_DIR}/include/*.h)
set(UMP_LAYERS "")
set(UMP_LAYER_OBJECTS "")
foreach(_line ${_ump_layer_lines})
  string(REGEX REPLACE "[ \t]+" ";" _words "${_line}")
  list(GET _words 0 _layer)
  set(_deps ${_words})
  list(REMOVE_AT _deps 0)
  list(APPEND UMP_LAYERS ${_layer})

  set(_inc ${CMAKE_BINARY_DIR}/layer-include/${_layer})
  file(REMOVE_RECURSE ${_inc})
  file(MAKE_DIRECTORY ${_inc})
  foreach(_d ${_layer} ${_deps})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${_d} ${_inc}/${_d} SYMBOLIC)
  endforeach()
  foreach(_h ${_ump_public_headers})
    get_filename_component(_hn ${_h} NAME)
    if(_hn STREQUAL "mpi.h" AND NOT _layer STREQUAL "mpi")
      continue()
    endif()
    file(CREATE_LINK ${_h} ${_inc}/${_hn} SYMBOLIC)
  endforeach()

  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${_layer}/*.c)
  add_library(ump_${_layer} OBJECT ${_srcs})
  set_target_properties(ump_${_layer} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(ump_${_layer} PRIVATE ${_inc})
  target_compile_options(ump_${_layer} PRIVATE ${UMP_WARNINGS})
  list(APPEND UMP_LAYER_OBJECTS $<TARGET_OBJECTS:ump_${_layer}>)
endforeach()
