# SPDX-License-Identifier: BSD-3-Clause
# Installation and the ways programs build against ump:
#   - umpcc, a compiler wrapper: bin/umpcc in the build tree points at the
#     build tree (source include/, build lib/); the installed one finds the
#     prefix from its own location, so `cmake --install build --prefix P`
#     works for any P;
#   - ump.pc for pkg-config and a CMake package (find_package(ump) ->
#     ump::ump), both relocatable;
#   - the layout P/bin (umprun, umpcc, ump_info), P/include (ump.h, mpi.h),
#     P/lib (libump.so, libump.a, pkgconfig/ump.pc, cmake/ump/).
# Included from the top-level CMakeLists.txt after the targets are defined.
include(CMakePackageConfigHelpers)

set(UMPCC_CC ${CMAKE_C_COMPILER})
# Programs linked to a sanitized libump need the sanitizer runtimes.
set(UMPCC_LINK_EXTRA "")
if(UMP_SANITIZE)
  set(UMPCC_LINK_EXTRA "-fsanitize=address,undefined")
endif()
set(UMPCC_DIR ${CMAKE_CURRENT_LIST_DIR}/../tools/umpcc)

# Build-tree umpcc: absolute paths into this tree.
set(UMPCC_PATHS "incdir='${CMAKE_SOURCE_DIR}/include'\nlibdir='${CMAKE_BINARY_DIR}/lib'")
configure_file(${UMPCC_DIR}/umpcc.in ${CMAKE_BINARY_DIR}/bin/umpcc @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                WORLD_READ WORLD_EXECUTE)

# Installed umpcc: the prefix is the parent of the directory it lives in.
set(UMPCC_PATHS "prefix=$(CDPATH= cd -- \"$(dirname -- \"$0\")/..\" && pwd)\nincdir=\"$prefix/include\"\nlibdir=\"$prefix/lib\"")
configure_file(${UMPCC_DIR}/umpcc.in ${CMAKE_BINARY_DIR}/install/umpcc @ONLY)
configure_file(${UMPCC_DIR}/ump.pc.in ${CMAKE_BINARY_DIR}/install/ump.pc @ONLY)
configure_file(${UMPCC_DIR}/umpConfig.cmake.in ${CMAKE_BINARY_DIR}/install/umpConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/umpConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)

# Installed binaries find libump next to them.
foreach(t ump_info umprun)
  if(TARGET ${t})
    set_target_properties(${t} PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
    install(TARGETS ${t} RUNTIME DESTINATION bin)
  endif()
endforeach()
install(TARGETS ump LIBRARY DESTINATION lib)
install(TARGETS ump_archive ARCHIVE DESTINATION lib)
install(FILES ${CMAKE_SOURCE_DIR}/include/ump.h ${CMAKE_SOURCE_DIR}/include/mpi.h
        DESTINATION include)
install(PROGRAMS ${CMAKE_BINARY_DIR}/install/umpcc DESTINATION bin)
install(FILES ${CMAKE_BINARY_DIR}/install/ump.pc DESTINATION lib/pkgconfig)
install(FILES ${CMAKE_BINARY_DIR}/install/umpConfig.cmake
              ${CMAKE_BINARY_DIR}/install/umpConfigVersion.cmake
        DESTINATION lib/cmake/ump)

# The install test: install into a temporary prefix, build an MPI program
# with the installed umpcc, with pkg-config and with find_package(ump), and
# run each with the installed umprun -n 2.
if(UMP_BUILD_TESTS)
  add_test(NAME install.umpcc
           COMMAND sh ${UMPCC_DIR}/test/install_test.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
                   ${UMPCC_DIR}/test)
  set_tests_properties(install.umpcc PROPERTIES TIMEOUT 240 LABELS install SKIP_RETURN_CODE 77)
  add_test(NAME umpcc.build_tree
           COMMAND sh ${UMPCC_DIR}/test/build_tree_test.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR}/include
                   ${UMPCC_DIR}/test/hello_mpi.c)
  set_tests_properties(umpcc.build_tree PROPERTIES TIMEOUT 120 LABELS install)
endif()

# The Java binding installs its jar, JNI library and umpjavac itself
# (bindings/java/CMakeLists.txt); find_package(ump) then also sets
# ump_JAVA_JAR, ump_JAVA_LIBRARY and ump_UMPJAVAC.
if(TARGET ump_java)
  file(APPEND ${CMAKE_BINARY_DIR}/install/umpConfig.cmake
       "include(\"\${CMAKE_CURRENT_LIST_DIR}/umpJavaConfig.cmake\" OPTIONAL)\n")
endif()
