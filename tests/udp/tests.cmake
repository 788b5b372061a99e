# SPDX-License-Identifier: BSD-3-Clause
# The UDP transport and its reliability engine, beyond the per-transport runs
# of tests/mp (label: udp):
#   udp.stream[.faults|.k1]  a checked stream of mixed sizes between two ranks,
#                            lossless, under injected faults, one send socket
#   udp.netns.loss           the stream across a veth link shaped by tc with a
#                            short queue, so bursts are really dropped; the
#                            counters must show retransmissions (77 without
#                            root or tc)
#   udp.netns.{sizes,storm}  shm inside two namespaces, udp between them
#   udp.deadpeer             a stopped peer is declared dead within the budget
#   ofiud.{stream[.faults],deadpeer}  the same over libfabric datagrams (ofiud)
#   mpi.<prog>.n3.udp        the MPI conformance programs over udp
set(UMP_UDP_DIR ${CMAKE_CURRENT_LIST_DIR})
if(NOT TARGET umprun)
  return()
endif()

foreach(prog stream deadpeer)
  add_executable(udp_${prog} ${UMP_UDP_DIR}/${prog}.c)
  target_link_libraries(udp_${prog} PRIVATE ump)
  target_compile_options(udp_${prog} PRIVATE ${UMP_WARNINGS})
  set_target_properties(udp_${prog} PROPERTIES OUTPUT_NAME ${prog}
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/udp)
endforeach()

set(UMP_UDP_FAULTS UMP_REL_DROP=0.05 UMP_REL_DUP=0.02 UMP_REL_REORDER=0.05 UMP_REL_CORRUPT=0.01)

function(ump_udp_test name timeout)
  cmake_parse_arguments(U "" "" "CMD;ENV" ${ARGN})
  add_test(NAME ${name} COMMAND ${U_CMD})
  math(EXPR t "${timeout} + 15")
  set_tests_properties(${name} PROPERTIES TIMEOUT ${t} LABELS "udp" SKIP_RETURN_CODE 77
                                          ENVIRONMENT "${U_ENV}")
endfunction()

ump_udp_test(udp.stream 60
             CMD $<TARGET_FILE:umprun> -n 2 --timeout 60 --tag-output $<TARGET_FILE:udp_stream> 64m
             ENV UMP_TRANSPORTS=udp UMP_STATS=1)
ump_udp_test(udp.stream.faults 90
             CMD $<TARGET_FILE:umprun> -n 2 --timeout 90 --tag-output $<TARGET_FILE:udp_stream> 32m
             ENV UMP_TRANSPORTS=udp UMP_STATS=1 ${UMP_UDP_FAULTS})
ump_udp_test(udp.stream.k1 60
             CMD $<TARGET_FILE:umprun> -n 4 --timeout 60 --tag-output $<TARGET_FILE:udp_stream> 16m
             ENV UMP_TRANSPORTS=udp UMP_UDP_STRIPES=1 UMP_UDP_MTU=1472)
ump_udp_test(udp.netns.loss 120
             CMD ${UMP_UDP_DIR}/netns_loss.sh $<TARGET_FILE:udp_stream>
             ENV UMPRUN=$<TARGET_FILE:umprun>)
ump_udp_test(udp.deadpeer 40
             CMD $<TARGET_FILE:umprun> -n 2 --timeout 40 --tag-output $<TARGET_FILE:udp_deadpeer> 2 4
             ENV UMP_TRANSPORTS=udp UMP_REL_TIMEOUT=2 UMP_WAIT=block)

# The MPI conformance programs (built by tests/mpi) over udp, on 3 ranks.
foreach(prog p2p probe requests comm coll types stress)
  if(TARGET mpi_${prog})
    ump_udp_test(mpi.${prog}.n3.udp 90
                 CMD $<TARGET_FILE:umprun> -n 3 --timeout 90 -x UMP_TRANSPORTS=udp
                     $<TARGET_FILE:mpi_${prog}>
                 ENV UMP_TRANSPORTS=udp)
  endif()
endforeach()

# Two "hosts" (network namespaces): shm inside each, udp between them over
# the veth link (Ethernet-sized datagrams).
if(TARGET mp_sizes AND TARGET mp_storm)
  ump_udp_test(udp.netns.sizes 150
               CMD ${CMAKE_SOURCE_DIR}/scripts/netns-run.sh -n 4 --timeout 150 --tag-output
                   $<TARGET_FILE:mp_sizes> --max 256k
               ENV UMPRUN=$<TARGET_FILE:umprun> UMP_TRANSPORTS=shm,udp)
  ump_udp_test(udp.netns.storm 60
               CMD ${CMAKE_SOURCE_DIR}/scripts/netns-run.sh -n 4 --timeout 60 --tag-output
                   $<TARGET_FILE:mp_storm>
               ENV UMPRUN=$<TARGET_FILE:umprun> UMP_TRANSPORTS=shm,udp)
endif()

# The same engine over libfabric datagram endpoints (ofiud, the udp
# provider): the checked stream, lossless (two endpoints) and under the
# injected faults, and a stopped peer declared dead within the budget.
if(UMP_HAVE_OFI)
  set(ud_env UMP_TRANSPORTS=ofiud UMP_OFIUD_PROVIDER=udp)
  ump_udp_test(ofiud.stream 90
               CMD $<TARGET_FILE:umprun> -n 2 --timeout 90 --tag-output $<TARGET_FILE:udp_stream> 16m
               ENV ${ud_env} UMP_OFIUD_STRIPES=2 UMP_STATS=1)
  ump_udp_test(ofiud.stream.faults 120
               CMD $<TARGET_FILE:umprun> -n 2 --timeout 120 --tag-output $<TARGET_FILE:udp_stream> 8m
               ENV ${ud_env} UMP_STATS=1 ${UMP_UDP_FAULTS})
  ump_udp_test(ofiud.deadpeer 40
               CMD $<TARGET_FILE:umprun> -n 2 --timeout 40 --tag-output $<TARGET_FILE:udp_deadpeer> 2 4
               ENV ${ud_env} UMP_REL_TIMEOUT=2 UMP_WAIT=block)
endif()
