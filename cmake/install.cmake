# SPDX-License-Identifier: BSD-3-Clause
# Installation and the ways programs build against ump:
#   - umpcc and umpcxx, compiler wrappers for C and C++: bin/umpcc in the
#     build tree points at the build tree (source include/, build lib/); the
#     installed one finds the prefix from its own location, so
#     `cmake --install build --prefix P` works for any P;
#   - the names MPI users and build systems look for (CMake's FindMPI,
#     autotools, scripts): mpicc, mpicxx -> umpcc, umpcxx and mpiexec,
#     mpirun -> umprun, as symbolic links in build/bin and P/bin, unless
#     UMP_MPI_NAMES is OFF (a site whose mpicc is another MPI's);
#   - ump.pc for pkg-config and a CMake package (find_package(ump) ->
#     ump::ump), both relocatable;
#   - the layout P/bin (umprun, umpcc, umpcxx, ump_info, the MPI names),
#     P/include (ump.h, ump_coll.h, mpi.h), P/lib (libump.so, libump.a,
#     pkgconfig/ump.pc, cmake/ump/).
# Included from the top-level CMakeLists.txt after the targets are defined.
include(CMakePackageConfigHelpers)
option(UMP_MPI_NAMES "Also install mpicc, mpicxx, mpiexec and mpirun (links to ump's tools)" ON)

# Programs linked to a sanitized libump need the sanitizer runtimes.
set(UMPCC_LINK_EXTRA "")
if(UMP_SANITIZE)
  set(UMPCC_LINK_EXTRA "-fsanitize=address,undefined")
elseif(UMP_TSAN)
  set(UMPCC_LINK_EXTRA "-fsanitize=thread")
endif()
set(UMPCC_DIR ${CMAKE_CURRENT_LIST_DIR}/../tools/umpcc)
set(UMPCC_VERSION ${PROJECT_VERSION})

# umpcxx's compiler: the project is C only, so take the C++ driver of the C
# compiler's family (gcc-12 -> g++-12, clang -> clang++, cc -> c++), beside it.
get_filename_component(_cc_dir ${CMAKE_C_COMPILER} DIRECTORY)
get_filename_component(_cc_name ${CMAKE_C_COMPILER} NAME)
string(REGEX REPLACE "^gcc" "g++" _cxx_name "${_cc_name}")
string(REGEX REPLACE "^clang" "clang++" _cxx_name "${_cxx_name}")
string(REGEX REPLACE "^cc$" "c++" _cxx_name "${_cxx_name}")
find_program(UMPCXX_CXX NAMES ${_cxx_name} c++ g++ clang++ HINTS ${_cc_dir}
             DOC "C++ compiler behind umpcxx")
if(NOT UMPCXX_CXX)
  set(UMPCXX_CXX c++)
endif()

# Writes one wrapper (umpcc or umpcxx) for the build tree and for install.
function(ump_wrapper name lang compiler envvar mpiname)
  set(UMPCC_NAME ${name})
  set(UMPCC_LANG ${lang})
  set(UMPCC_CC ${compiler})
  set(UMPCC_ENV ${envvar})
  set(UMPCC_MPINAME ${mpiname})
  # Build tree: absolute paths into this tree.
  set(UMPCC_PATHS "incdir='${CMAKE_SOURCE_DIR}/include'\nlibdir='${CMAKE_BINARY_DIR}/lib'")
  configure_file(${UMPCC_DIR}/umpcc.in ${CMAKE_BINARY_DIR}/bin/${name} @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                  WORLD_READ WORLD_EXECUTE)
  # Installed: the prefix is the parent of the directory it lives in.
  set(UMPCC_PATHS "prefix=$(CDPATH= cd -- \"$(dirname -- \"$0\")/..\" && pwd)\nincdir=\"$prefix/include\"\nlibdir=\"$prefix/lib\"")
  configure_file(${UMPCC_DIR}/umpcc.in ${CMAKE_BINARY_DIR}/install/${name} @ONLY)
  install(PROGRAMS ${CMAKE_BINARY_DIR}/install/${name} DESTINATION bin)
endfunction()
ump_wrapper(umpcc C ${CMAKE_C_COMPILER} UMPCC_CC mpicc)
ump_wrapper(umpcxx C++ ${UMPCXX_CXX} UMPCXX_CXX mpicxx)
set(UMPCC_CC ${CMAKE_C_COMPILER})
configure_file(${UMPCC_DIR}/ump.pc.in ${CMAKE_BINARY_DIR}/install/ump.pc @ONLY)
configure_file(${UMPCC_DIR}/umpConfig.cmake.in ${CMAKE_BINARY_DIR}/install/umpConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/umpConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)

# The MPI names are relative symbolic links, so the wrappers still find their
# prefix through $0 and the tree can move.
set(UMP_MPI_LINKS mpicc:umpcc mpicxx:umpcxx mpiexec:umprun mpirun:umprun)
foreach(l ${UMP_MPI_LINKS})
  string(REPLACE ":" ";" l ${l})
  list(GET l 0 alias)
  list(GET l 1 target)
  if(UMP_MPI_NAMES)
    file(CREATE_LINK ${target} ${CMAKE_BINARY_DIR}/bin/${alias} SYMBOLIC)
    install(CODE "file(CREATE_LINK ${target} \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/bin/${alias}\" SYMBOLIC)
                  message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/bin/${alias} -> ${target}\")")
  else()
    file(REMOVE ${CMAKE_BINARY_DIR}/bin/${alias})
  endif()
endforeach()

# Installed binaries find libump next to them.
foreach(t ump_info umprun)
  if(TARGET ${t})
    set_target_properties(${t} PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
    install(TARGETS ${t} RUNTIME DESTINATION bin)
  endif()
endforeach()
install(TARGETS ump LIBRARY DESTINATION lib)
install(TARGETS ump_archive ARCHIVE DESTINATION lib)
install(FILES ${CMAKE_SOURCE_DIR}/include/ump.h ${CMAKE_SOURCE_DIR}/include/ump_coll.h
              ${CMAKE_SOURCE_DIR}/include/mpi.h
        DESTINATION include)
install(FILES ${CMAKE_BINARY_DIR}/install/ump.pc DESTINATION lib/pkgconfig)
install(FILES ${CMAKE_BINARY_DIR}/install/umpConfig.cmake
              ${CMAKE_BINARY_DIR}/install/umpConfigVersion.cmake
        DESTINATION lib/cmake/ump)

# Man pages for umprun, umpcc and ump_info, made from their pages in docs/
# by pandoc (cmake/man_page.cmake), with links for the other names. Without
# pandoc the build says so and installs none.
find_program(PANDOC pandoc DOC "pandoc, to make the man pages from docs/")
set(UMP_MAN_PAGES umprun umpcc ump_info)
if(PANDOC)
  set(man_outputs "")
  foreach(page ${UMP_MAN_PAGES})
    set(out ${CMAKE_BINARY_DIR}/man/${page}.1)
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -DPANDOC=${PANDOC} -DIN=${CMAKE_SOURCE_DIR}/docs/${page}.md
              -DOUT=${out} -DVERSION=${PROJECT_VERSION} -P ${CMAKE_CURRENT_LIST_DIR}/man_page.cmake
      DEPENDS ${CMAKE_SOURCE_DIR}/docs/${page}.md ${CMAKE_CURRENT_LIST_DIR}/man_page.cmake
      COMMENT "Making the man page ${page}.1")
    list(APPEND man_outputs ${out})
    install(FILES ${out} DESTINATION share/man/man1)
  endforeach()
  add_custom_target(man ALL DEPENDS ${man_outputs})
  set(man_links umpcxx:umpcc)
  if(UMP_MPI_NAMES)
    list(APPEND man_links mpicc:umpcc mpicxx:umpcc mpiexec:umprun mpirun:umprun)
  endif()
  foreach(l ${man_links})
    string(REPLACE ":" ";" l ${l})
    list(GET l 0 alias)
    list(GET l 1 target)
    install(CODE "file(CREATE_LINK ${target}.1 \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/share/man/man1/${alias}.1\" SYMBOLIC)")
  endforeach()
else()
  message(STATUS "man pages: pandoc not found, none will be made or installed "
                 "(apt-get install pandoc, or scripts/install-deps.sh)")
endif()

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
  # CMake's find_package(MPI) finds ump through mpicc and mpiexec.
  add_test(NAME install.findmpi
           COMMAND sh ${UMPCC_DIR}/test/findmpi_test.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
                   ${UMPCC_DIR}/test "${UMPCC_LINK_EXTRA}")
  set_tests_properties(install.findmpi PROPERTIES TIMEOUT 300 LABELS install SKIP_RETURN_CODE 77)
endif()

# The Java binding installs its jar, JNI library and umpjavac itself
# (bindings/java/CMakeLists.txt); find_package(ump) then also sets
# ump_JAVA_JAR, ump_JAVA_LIBRARY and ump_UMPJAVAC.
if(TARGET ump_java)
  file(APPEND ${CMAKE_BINARY_DIR}/install/umpConfig.cmake
       "include(\"\${CMAKE_CURRENT_LIST_DIR}/umpJavaConfig.cmake\" OPTIONAL)\n")
endif()
