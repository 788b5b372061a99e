# SPDX-License-Identifier: BSD-3-Clause
# The libfabric transport (src/xport/ofi): built when pkg-config finds the
# `libfabric` module (Debian: libfabric-dev). Without it its sources are
# left out and the registry does not list it. Include after the ump_xport,
# ump, ump_archive and ump_static targets exist.
option(UMP_OFI "Build the libfabric transport when libfabric is found" ON)
set(UMP_HAVE_OFI OFF)
file(GLOB UMP_OFI_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/xport/ofi/*.c)
if(UMP_OFI)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(OFI QUIET IMPORTED_TARGET libfabric)
  endif()
  if(OFI_FOUND)
    set(UMP_HAVE_OFI ON)
    # libfabric is opened with dlopen when the transport opens (ofi_lib.c
    # says why): only its headers are needed here, and -ldl to link.
    target_compile_definitions(ump_xport PRIVATE UMP_HAVE_OFI UMP_OFI_LIBDIR="${OFI_LIBDIR}")
    target_include_directories(ump_xport PRIVATE ${OFI_INCLUDE_DIRS})
    target_link_libraries(ump PRIVATE ${CMAKE_DL_LIBS})
    target_link_libraries(ump_archive PUBLIC ${CMAKE_DL_LIBS})
    target_link_libraries(ump_static INTERFACE ${CMAKE_DL_LIBS})
    message(STATUS "libfabric ${OFI_VERSION} found: building the ofi transport")
  else()
    message(STATUS "libfabric not found (install libfabric-dev): no ofi transport")
  endif()
else()
  message(STATUS "UMP_OFI=OFF: no ofi transport")
endif()
if(NOT UMP_HAVE_OFI)
  # The sources stay in the glob of src/ but are not compiled.
  set_source_files_properties(${UMP_OFI_SOURCES} PROPERTIES HEADER_FILE_ONLY ON)
endif()
