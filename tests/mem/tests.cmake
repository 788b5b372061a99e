# SPDX-License-Identifier: BSD-3-Clause
# The registration cache (src/mem) under real rendezvous over the libfabric
# transport: over tcp;ofi_rxm and shm with the default, small and tight
# settings, and over sockets and udp;ofi_rxd once each.
# regcache links the library's objects to read the cache's counters.
if(NOT UMP_HAVE_OFI OR NOT TARGET umprun)
  return()
endif()
add_executable(mem_regcache ${CMAKE_CURRENT_LIST_DIR}/regcache.c)
target_link_libraries(mem_regcache PRIVATE ump_static)
target_compile_options(mem_regcache PRIVATE ${UMP_WARNINGS})
set_target_properties(mem_regcache PROPERTIES OUTPUT_NAME regcache
                      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/mem)

# ump_mem_test(<name> <timeout s> ENV...)
function(ump_mem_test name timeout)
  add_test(NAME mem.${name}
           COMMAND $<TARGET_FILE:umprun> -n 2 --timeout ${timeout} --tag-output
                   $<TARGET_FILE:mem_regcache>)
  math(EXPR ctest_timeout "${timeout} + 15")
  set_tests_properties(mem.${name} PROPERTIES TIMEOUT ${ctest_timeout} LABELS mem
                       SKIP_RETURN_CODE 77 ENVIRONMENT "${ARGN}")
endfunction()

foreach(prov rxm shm)
  if(prov STREQUAL rxm)
    set(env UMP_TRANSPORTS=ofi UMP_OFI_PROVIDER=ofi_rxm FI_PROVIDER=tcp,ofi_rxm)
  else()
    set(env UMP_TRANSPORTS=ofi UMP_OFI_PROVIDER=shm)
  endif()
  ump_mem_test(regcache.ofi.${prov} 120 ${env})
  # Small thresholds: sizes around the eager limit and the read threshold.
  ump_mem_test(regcache.ofi.${prov}.small 120 ${env} UMP_OFI_EAGER_LIMIT=256
               UMP_OFI_GET_MIN=4096)
  # A cache of two regions and 1 MiB: evictions between the transfers.
  ump_mem_test(regcache.ofi.${prov}.tight 120 ${env} UMP_MEM_CACHE_MAX_ENTRIES=2
               UMP_MEM_CACHE_MAX_BYTES=1m)
endforeach()
# "udp;ofi_rxd" holds a semicolon a ctest environment cannot: libfabric's
# own filter lets only udp and rxd load.
ump_mem_test(regcache.ofi.sockets 240 UMP_TRANSPORTS=ofi UMP_OFI_PROVIDER=sockets)
ump_mem_test(regcache.ofi.rxd 240 UMP_TRANSPORTS=ofi UMP_OFI_PROVIDER=ofi_rxd
             FI_PROVIDER=udp,ofi_rxd)
