# SPDX-License-Identifier: BSD-3-Clause
# The PMIx bootstrap backend (src/rt/rt_pmix.c): built when pkg-config finds
# the `pmix` module (Debian: libpmix-dev). Without it the backend is left
# out and ump_rt_backends() / ump_info say so. Include after the ump_rt,
# ump, ump_archive and ump_static targets exist.
option(UMP_PMIX "Build the PMIx bootstrap backend when libpmix is found" ON)
set(UMP_HAVE_PMIX OFF)
if(UMP_PMIX)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(PMIX QUIET IMPORTED_TARGET pmix)
  endif()
  if(PMIX_FOUND)
    set(UMP_HAVE_PMIX ON)
    target_compile_definitions(ump_rt PRIVATE UMP_HAVE_PMIX)
    # The runtime layer needs the include path; the link targets the library.
    target_link_libraries(ump_rt PRIVATE PkgConfig::PMIX)
    target_link_libraries(ump PRIVATE PkgConfig::PMIX)
    target_link_libraries(ump_archive PUBLIC PkgConfig::PMIX)
    target_link_libraries(ump_static INTERFACE PkgConfig::PMIX)
    message(STATUS "PMIx ${PMIX_VERSION} found: building the PMIx bootstrap backend")
  else()
    message(STATUS "PMIx not found (install libpmix-dev): no PMIx bootstrap backend")
  endif()
endif()
