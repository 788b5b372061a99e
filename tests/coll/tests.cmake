# SPDX-License-Identifier: BSD-3-Clause
# Collective tests: each coll_*.c program runs under umprun on 1 to 9 ranks
# (above 2 the 2-core machine is oversubscribed, on purpose); ump_api.c runs
# the collectives through ump.h alone over shm and tcp. Label: coll.
set(COLL_DIR ${CMAKE_CURRENT_LIST_DIR})
file(GLOB COLL_TEST_SOURCES CONFIGURE_DEPENDS ${COLL_DIR}/coll_*.c)
foreach(src ${COLL_TEST_SOURCES})
  get_filename_component(prog ${src} NAME_WE)
  add_executable(${prog} ${src})
  # The tests force algorithms through the tunables table: internal symbols.
  target_link_libraries(${prog} PRIVATE ump_static)
  target_compile_options(${prog} PRIVATE ${UMP_WARNINGS} -Wno-unused-function)
  set_target_properties(${prog} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  foreach(n 1 2 3 4 5 6 7 8 9)
    # 8 and 9 ranks on 2 cores take about 10 s in a Release build and
    # several times that in the sanitizer build on a busy machine.
    add_test(NAME coll.${prog}.n${n}
             COMMAND $<TARGET_FILE:umprun> --timeout 270 -n ${n} $<TARGET_FILE:${prog}>)
    set_tests_properties(coll.${prog}.n${n} PROPERTIES TIMEOUT 300 LABELS coll)
  endforeach()
endforeach()

# Collectives through ump.h alone (no mpi.h, linked to the public library):
# world and even/odd sub-communicators, on 1 to 4 ranks over shm and tcp.
add_executable(coll_ump_api ${COLL_DIR}/ump_api.c)
target_link_libraries(coll_ump_api PRIVATE ump)
target_compile_options(coll_ump_api PRIVATE ${UMP_WARNINGS})
set_target_properties(coll_ump_api PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
foreach(t shm tcp)
  foreach(n 1 2 3 4)
    add_test(NAME coll.ump_api.${t}.n${n}
             COMMAND $<TARGET_FILE:umprun> --timeout 100 -n ${n} $<TARGET_FILE:coll_ump_api>)
    set_tests_properties(coll.ump_api.${t}.n${n} PROPERTIES TIMEOUT 120 LABELS coll
                         ENVIRONMENT UMP_TRANSPORTS=${t})
  endforeach()
endforeach()

# Every collective program and the ump.h-only one on 4 ranks over ofiud (the
# reliability engine over libfabric datagrams), lossless and under the rel
# fault injection.
if(UMP_HAVE_OFI)
  set(ud_faults "UMP_REL_DROP=0.05;UMP_REL_DUP=0.02;UMP_REL_REORDER=0.05;UMP_REL_CORRUPT=0.01")
  foreach(src ${COLL_TEST_SOURCES} ump_api)
    get_filename_component(prog ${src} NAME_WE)
    if(prog STREQUAL ump_api)
      set(prog coll_ump_api)
    endif()
    foreach(faults "" ".faults")
      set(env "UMP_TRANSPORTS=ofiud;UMP_OFIUD_PROVIDER=udp")
      if(faults)
        string(APPEND env ";${ud_faults}")
      endif()
      add_test(NAME coll.${prog}.n4.ofiud${faults}
               COMMAND $<TARGET_FILE:umprun> --timeout 270 -n 4 $<TARGET_FILE:${prog}>)
      set_tests_properties(coll.${prog}.n4.ofiud${faults} PROPERTIES TIMEOUT 300 LABELS coll
                           ENVIRONMENT "${env}")
    endforeach()
  endforeach()
endif()
