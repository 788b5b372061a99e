# SPDX-License-Identifier: BSD-3-Clause
# MPI conformance suite: one self-checking program per area of the MPI 3.1
# standard, each run under umprun on 1-4 ranks over shm and tcp
# (mpi.<prog>.n<N>.<shm|tcp>), plus the singleton, thread-level and
# fatal-error runs, and the classic programs compared against Open MPI
# (mpi.classic.<prog>). Label: mpi. The programs use only standard MPI, so
# tests/mpi/openmpi.sh can run the same sources under Open MPI.
# Until the MPI layer defines the calls the programs use (point-to-point and
# the basic collectives), they cannot link: skip them rather than break the build.
file(GLOB_RECURSE UMP_MPI_LAYER_SOURCES ${CMAKE_SOURCE_DIR}/src/mpi/*.c
     ${CMAKE_SOURCE_DIR}/src/coll/*.c)
set(UMP_MPI_MISSING Init Send Barrier Bcast Reduce Allreduce)
foreach(src ${UMP_MPI_LAYER_SOURCES})
  file(STRINGS ${src} defs REGEX "^int PMPI_[A-Za-z_]+[ ]*\\([ ]*[A-Za-z]")
  foreach(fn ${UMP_MPI_MISSING})
    if(defs MATCHES "int PMPI_${fn}[ ]*\\(")
      list(REMOVE_ITEM UMP_MPI_MISSING ${fn})
    endif()
  endforeach()
endforeach()
if(UMP_MPI_MISSING)
  message(STATUS "tests/mpi: the MPI layer does not define PMPI_${UMP_MPI_MISSING} yet, "
                 "MPI tests not built")
  return()
endif()

set(MPI_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})
set(MPI_TEST_PROGS env p2p probe requests comm group errh types info coll stress dpm)
set(MPI_CLASSIC_PROGS ring pi halo master_worker)
set(MPI_UMPRUN $<TARGET_FILE:umprun>)

function(ump_mpi_program target src outdir outname)
  add_executable(${target} ${src})
  target_link_libraries(${target} PRIVATE ump Threads::Threads m)
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_compile_options(${target} PRIVATE ${UMP_WARNINGS})
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${outdir}
                                             OUTPUT_NAME ${outname})
endfunction()

foreach(prog ${MPI_TEST_PROGS} errh_fatal)
  ump_mpi_program(mpi_${prog} ${MPI_TEST_DIR}/${prog}.c ${CMAKE_BINARY_DIR}/tests/mpi ${prog})
endforeach()
foreach(prog ${MPI_CLASSIC_PROGS})
  ump_mpi_program(mpi_classic_${prog} ${MPI_TEST_DIR}/classic/${prog}.c
                  ${CMAKE_BINARY_DIR}/tests/mpi/classic ${prog})
endforeach()

# Every program on 1, 2, 3 and 4 ranks over each transport.
foreach(prog ${MPI_TEST_PROGS})
  foreach(n 1 2 3 4)
    foreach(xp shm tcp)
      set(args "")
      if(prog STREQUAL "env")
        set(args --expect-size=${n})
      endif()
      set(name mpi.${prog}.n${n}.${xp})
      add_test(NAME ${name}
               COMMAND ${MPI_UMPRUN} -n ${n} --timeout 60 -x UMP_TRANSPORTS=${xp}
                       $<TARGET_FILE:mpi_${prog}> ${args})
      set_tests_properties(${name} PROPERTIES TIMEOUT 90 LABELS mpi
                                              ENVIRONMENT UMP_TRANSPORTS=${xp})
    endforeach()
  endforeach()
endforeach()

# Started without umprun, a program is a singleton job of size 1.
foreach(prog ${MPI_TEST_PROGS})
  set(args "")
  if(prog STREQUAL "env")
    set(args --expect-size=1)
  endif()
  add_test(NAME mpi.${prog}.singleton COMMAND $<TARGET_FILE:mpi_${prog}> ${args})
  set_tests_properties(mpi.${prog}.singleton PROPERTIES TIMEOUT 60 LABELS mpi)
endforeach()

# Client and server meeting through a port, both ways, and join: 1-4 ranks
# over each transport.
ump_mpi_program(mpi_dpm_comm ${MPI_TEST_DIR}/dpm_comm.c ${CMAKE_BINARY_DIR}/tests/mpi dpm_comm)
foreach(n 1 2 3 4)
  foreach(xp shm tcp)
    set(name mpi.dpm_comm.n${n}.${xp})
    add_test(NAME ${name} COMMAND ${MPI_UMPRUN} -n ${n} --timeout 60 -x UMP_TRANSPORTS=${xp}
                                  $<TARGET_FILE:mpi_dpm_comm>)
    set_tests_properties(${name} PROPERTIES TIMEOUT 90 LABELS mpi ENVIRONMENT UMP_TRANSPORTS=${xp})
  endforeach()
endforeach()
# Two umprun jobs: a process of the other job is refused at the port.
add_test(NAME mpi.dpm_comm.two_jobs COMMAND bash ${MPI_TEST_DIR}/dpm_jobs.sh ${MPI_UMPRUN}
                                            $<TARGET_FILE:mpi_dpm_comm>)
# Five umprun jobs in turn (each with --timeout 60 or 30): room for a loaded machine.
set_tests_properties(mpi.dpm_comm.two_jobs PROPERTIES TIMEOUT 240 LABELS mpi)

# Spawning: parents on 1-3 ranks start 3 children that answer point to
# point and in collectives, then spawn_multiple and refused spawns. The
# world over shm (tcp kept idle until the children come) or over tcp.
ump_mpi_program(mpi_spawn ${MPI_TEST_DIR}/spawn.c ${CMAKE_BINARY_DIR}/tests/mpi spawn)
foreach(n 1 2 3)
  foreach(xp "shm,tcp" tcp)
    string(REPLACE "," "_" xpn ${xp})
    set(name mpi.spawn.n${n}.${xpn})
    add_test(NAME ${name} COMMAND ${MPI_UMPRUN} -n ${n} --timeout 150 -x UMP_TRANSPORTS=${xp}
                                  $<TARGET_FILE:mpi_spawn>)
    set_tests_properties(${name} PROPERTIES TIMEOUT 200 LABELS mpi ENVIRONMENT
                                            UMP_TRANSPORTS=${xp})
  endforeach()
endforeach()
# A spawned program that never calls MPI_Init: umprun ends the job, saying why.
add_test(NAME mpi.spawn.not_mpi COMMAND ${MPI_UMPRUN} -n 2 --timeout 100 $<TARGET_FILE:mpi_spawn>
                                        --spawn-true)
set_tests_properties(mpi.spawn.not_mpi PROPERTIES TIMEOUT 150 LABELS mpi PASS_REGULAR_EXPRESSION
                     "spawned group 1 .* exited with code 0 without initializing MPI")

# MPI_Init_thread with each required level; under MULTIPLE the program also
# communicates from two threads at once.
foreach(run "single;2;shm" "funneled;2;shm" "serialized;2;shm" "multiple;2;shm" "multiple;4;shm"
            "multiple;3;tcp")
  list(GET run 0 level)
  list(GET run 1 n)
  list(GET run 2 xp)
  set(name mpi.env_thread_${level}.n${n}.${xp})
  add_test(NAME ${name}
           COMMAND ${MPI_UMPRUN} -n ${n} --timeout 60 -x UMP_TRANSPORTS=${xp}
                   $<TARGET_FILE:mpi_env> --thread=${level} --expect-size=${n})
  set_tests_properties(${name} PROPERTIES TIMEOUT 90 LABELS mpi ENVIRONMENT UMP_TRANSPORTS=${xp})
endforeach()

# MPI_ERRORS_ARE_FATAL aborts the job, and the message names the call.
foreach(run "1;shm" "2;shm" "4;shm" "2;tcp" "4;tcp")
  list(GET run 0 n)
  list(GET run 1 xp)
  set(name mpi.errh_fatal.n${n}.${xp})
  add_test(NAME ${name}
           COMMAND bash ${MPI_TEST_DIR}/fatal.sh MPI_Send ${MPI_UMPRUN} -n ${n} --timeout 30
                   -x UMP_TRANSPORTS=${xp} $<TARGET_FILE:mpi_errh_fatal>)
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS mpi ENVIRONMENT UMP_TRANSPORTS=${xp})
endforeach()

# Receive types with overlapping entries are refused with MPI_ERR_TYPE on
# every receive path (2 ranks, each transport).
ump_mpi_program(mpi_recv_overlap ${MPI_TEST_DIR}/recv_overlap.c ${CMAKE_BINARY_DIR}/tests/mpi
                recv_overlap)
foreach(xp shm tcp)
  set(name mpi.recv_overlap.n2.${xp})
  add_test(NAME ${name}
           COMMAND ${MPI_UMPRUN} -n 2 --timeout 60 -x UMP_TRANSPORTS=${xp}
                   $<TARGET_FILE:mpi_recv_overlap>)
  set_tests_properties(${name} PROPERTIES TIMEOUT 90 LABELS mpi ENVIRONMENT UMP_TRANSPORTS=${xp})
endforeach()

# MPI_Abort ends the whole job with the code given.
foreach(run "1;shm" "3;shm" "3;tcp")
  list(GET run 0 n)
  list(GET run 1 xp)
  set(name mpi.abort.n${n}.${xp})
  add_test(NAME ${name}
           COMMAND bash ${MPI_TEST_DIR}/fatal.sh "(code|errorcode) 7" ${MPI_UMPRUN} -n ${n}
                   --timeout 30 -x UMP_TRANSPORTS=${xp} $<TARGET_FILE:mpi_errh_fatal> --abort)
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS mpi
                                          ENVIRONMENT "UMP_TRANSPORTS=${xp};FATAL_RC=7")
endforeach()

# Classic programs: same output as under Open MPI (4 ranks, default transport),
# and self-checking runs on 3 ranks over tcp.
foreach(prog ${MPI_CLASSIC_PROGS})
  add_test(NAME mpi.classic.${prog}
           COMMAND bash ${MPI_TEST_DIR}/classic/compare.sh ${prog}
                   $<TARGET_FILE:mpi_classic_${prog}> ${MPI_UMPRUN} 4)
  set_tests_properties(mpi.classic.${prog} PROPERTIES TIMEOUT 400 LABELS mpi SKIP_RETURN_CODE 77
                       RESOURCE_LOCK apt)
  if(UMP_SANITIZE)
    set_tests_properties(mpi.classic.${prog} PROPERTIES ENVIRONMENT UMP_COMPARE_NO_UMPCC=1)
  endif()
  add_test(NAME mpi.classic.${prog}.n3.tcp
           COMMAND ${MPI_UMPRUN} -n 3 --timeout 60 -x UMP_TRANSPORTS=tcp
                   $<TARGET_FILE:mpi_classic_${prog}>)
  set_tests_properties(mpi.classic.${prog}.n3.tcp PROPERTIES TIMEOUT 90 LABELS mpi
                                                             ENVIRONMENT UMP_TRANSPORTS=tcp)
endforeach()

# Process topologies and neighbourhood collectives on 1-9 ranks over each
# transport (grids of every shape the rank counts factor into), and the
# singleton run.
foreach(prog topo neighbor)
  ump_mpi_program(mpi_${prog} ${MPI_TEST_DIR}/${prog}.c ${CMAKE_BINARY_DIR}/tests/mpi ${prog})
  foreach(n 1 2 3 4 6 9)
    foreach(xp shm tcp)
      set(name mpi.${prog}.n${n}.${xp})
      add_test(NAME ${name}
               COMMAND ${MPI_UMPRUN} -n ${n} --timeout 150 -x UMP_TRANSPORTS=${xp}
                       $<TARGET_FILE:mpi_${prog}>)
      set_tests_properties(${name} PROPERTIES TIMEOUT 200 LABELS mpi
                                              ENVIRONMENT UMP_TRANSPORTS=${xp})
    endforeach()
  endforeach()
  add_test(NAME mpi.${prog}.singleton COMMAND $<TARGET_FILE:mpi_${prog}>)
  set_tests_properties(mpi.${prog}.singleton PROPERTIES TIMEOUT 60 LABELS mpi)
endforeach()

# examples/stencil.c builds and gives on 4 ranks (and on 6, with blocks of
# unequal size) the answer of 1 rank.
ump_mpi_program(mpi_example_stencil ${CMAKE_SOURCE_DIR}/examples/stencil.c
                ${CMAKE_BINARY_DIR}/tests/mpi stencil_example)
foreach(run "4;shm;64 500" "4;tcp;64 500" "6;shm;45 300")
  list(GET run 0 n)
  list(GET run 1 xp)
  list(GET run 2 args)
  separate_arguments(args)
  set(name mpi.example_stencil.n${n}.${xp})
  add_test(NAME ${name} COMMAND bash ${MPI_TEST_DIR}/stencil_example.sh
                                $<TARGET_FILE:mpi_example_stencil> ${MPI_UMPRUN} ${n} ${args})
  set_tests_properties(${name} PROPERTIES TIMEOUT 240 LABELS mpi ENVIRONMENT UMP_TRANSPORTS=${xp})
endforeach()

# One-sided communication (windows): every program on 2 and 4 ranks over
# shm and tcp, on 3 ranks over udp (also with injected faults), and as a
# singleton.
set(MPI_RMA_PROGS win rma rma_sync rma_err rma_mt rma_edge rma_batch)
foreach(prog ${MPI_RMA_PROGS})
  ump_mpi_program(mpi_${prog} ${MPI_TEST_DIR}/${prog}.c ${CMAKE_BINARY_DIR}/tests/mpi ${prog})
  foreach(run "2;shm" "4;shm" "2;tcp" "4;tcp" "3;udp")
    list(GET run 0 n)
    list(GET run 1 xp)
    set(name mpi.${prog}.n${n}.${xp})
    add_test(NAME ${name}
             COMMAND ${MPI_UMPRUN} -n ${n} --timeout 120 -x UMP_TRANSPORTS=${xp}
                     $<TARGET_FILE:mpi_${prog}>)
    set_tests_properties(${name} PROPERTIES TIMEOUT 180 LABELS mpi ENVIRONMENT UMP_TRANSPORTS=${xp})
  endforeach()
  add_test(NAME mpi.${prog}.singleton COMMAND $<TARGET_FILE:mpi_${prog}>)
  set_tests_properties(mpi.${prog}.singleton PROPERTIES TIMEOUT 120 LABELS mpi)
  # udp dropping, duplicating, reordering and corrupting datagrams.
  set(name mpi.${prog}.n3.udp.faults)
  add_test(NAME ${name} COMMAND ${MPI_UMPRUN} -n 3 --timeout 150 $<TARGET_FILE:mpi_${prog}>)
  set_tests_properties(
    ${name}
    PROPERTIES TIMEOUT 200 LABELS mpi
               ENVIRONMENT
               "UMP_TRANSPORTS=udp;UMP_REL_DROP=0.05;UMP_REL_DUP=0.02;UMP_REL_REORDER=0.05;UMP_REL_CORRUPT=0.01")
endforeach()

# Windows of MPI_Win_allocate on one node are direct (loads and stores by
# the origin): rma_direct's target makes no MPI call while the others
# work on its window. And the message path those windows leave, kept
# tested on shm by UMP_WIN_DIRECT=0.
ump_mpi_program(mpi_rma_direct ${MPI_TEST_DIR}/rma_direct.c ${CMAKE_BINARY_DIR}/tests/mpi
                rma_direct)
foreach(run "2;shm" "4;shm" "3;tcp")
  list(GET run 0 n)
  list(GET run 1 xp)
  set(name mpi.rma_direct.n${n}.${xp})
  add_test(NAME ${name} COMMAND ${MPI_UMPRUN} -n ${n} --timeout 150 -x UMP_TRANSPORTS=${xp}
                                $<TARGET_FILE:mpi_rma_direct>)
  set_tests_properties(${name} PROPERTIES TIMEOUT 200 LABELS mpi ENVIRONMENT UMP_TRANSPORTS=${xp})
endforeach()
add_test(NAME mpi.rma_direct.singleton COMMAND $<TARGET_FILE:mpi_rma_direct>)
set_tests_properties(mpi.rma_direct.singleton PROPERTIES TIMEOUT 120 LABELS mpi)
foreach(prog rma rma_sync rma_edge rma_mt rma_batch win)
  set(name mpi.${prog}.n3.shm.messages)
  add_test(NAME ${name} COMMAND ${MPI_UMPRUN} -n 3 --timeout 120 -x UMP_TRANSPORTS=shm
                                -x UMP_WIN_DIRECT=0 $<TARGET_FILE:mpi_${prog}>)
  set_tests_properties(${name} PROPERTIES TIMEOUT 180 LABELS mpi
                                          ENVIRONMENT "UMP_TRANSPORTS=shm;UMP_WIN_DIRECT=0")
endforeach()

# The message path over tcp (on one node a window is otherwise direct).
add_test(NAME mpi.rma.n3.tcp.messages
         COMMAND ${MPI_UMPRUN} -n 3 --timeout 120 -x UMP_TRANSPORTS=tcp -x UMP_WIN_DIRECT=0
                 $<TARGET_FILE:mpi_rma>)
set_tests_properties(mpi.rma.n3.tcp.messages PROPERTIES TIMEOUT 180 LABELS mpi)

# A window error under the default MPI_ERRORS_ARE_FATAL ends the job, and
# the message names the call and the error class.
foreach(run "2;shm" "3;tcp")
  list(GET run 0 n)
  list(GET run 1 xp)
  set(name mpi.rma_err_fatal.n${n}.${xp})
  add_test(NAME ${name}
           COMMAND bash ${MPI_TEST_DIR}/fatal.sh "MPI_Put.*MPI_ERR_RMA_RANGE" ${MPI_UMPRUN} -n ${n}
                   --timeout 30 -x UMP_TRANSPORTS=${xp} $<TARGET_FILE:mpi_rma_err> --fatal)
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS mpi ENVIRONMENT UMP_TRANSPORTS=${xp})
endforeach()
# An access outside a dynamic window's attached memory is refused by the
# target, which ends the job naming both ranks.
foreach(run "2;shm" "3;tcp")
  list(GET run 0 n)
  list(GET run 1 xp)
  set(name mpi.rma_err_dynamic.n${n}.${xp})
  add_test(NAME ${name}
           COMMAND bash ${MPI_TEST_DIR}/fatal.sh "from rank 0 .*not attached.*MPI_ERR_RMA_RANGE"
                   ${MPI_UMPRUN} -n ${n} --timeout 30 -x UMP_TRANSPORTS=${xp}
                   $<TARGET_FILE:mpi_rma_err> --fatal-dynamic)
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS mpi ENVIRONMENT UMP_TRANSPORTS=${xp})
endforeach()

# MPI 3.1 completion (attributes, handles, info, errors, generalized
# requests, external32, the remaining nonblocking collectives): each
# program on 1-4 ranks over each transport, and as a singleton.
set(MPI31_PROGS coll_nb31 comm31 attr31 grequest types31 pack_ext mpit win_attr)
foreach(prog ${MPI31_PROGS})
  ump_mpi_program(mpi_${prog} ${MPI_TEST_DIR}/${prog}.c ${CMAKE_BINARY_DIR}/tests/mpi ${prog})
  foreach(n 1 2 3 4)
    foreach(xp shm tcp)
      set(name mpi.${prog}.n${n}.${xp})
      add_test(NAME ${name}
               COMMAND ${MPI_UMPRUN} -n ${n} --timeout 120 -x UMP_TRANSPORTS=${xp}
                       $<TARGET_FILE:mpi_${prog}>)
      set_tests_properties(${name} PROPERTIES TIMEOUT 180 LABELS mpi
                                              ENVIRONMENT UMP_TRANSPORTS=${xp})
    endforeach()
  endforeach()
  add_test(NAME mpi.${prog}.singleton COMMAND $<TARGET_FILE:mpi_${prog}>)
  set_tests_properties(mpi.${prog}.singleton PROPERTIES TIMEOUT 60 LABELS mpi)
endforeach()

# MPI_T control variables read back what the environment set, one of
# each type (size, integer, boolean, double, enum, string).
add_test(NAME mpi.mpit.env
         COMMAND ${MPI_UMPRUN} -n 2 --timeout 60 -x UMP_TRANSPORTS=shm -x UMP_COLL_SEGSIZE=96k
                 -x UMP_WAIT_SPIN_US=7 -x UMP_SHM_CMA=no -x UMP_REL_TIMEOUT=12.5
                 -x UMP_COLL_BCAST_ALGO=binomial $<TARGET_FILE:mpi_mpit> --expect-set=6)
set_tests_properties(mpi.mpit.env PROPERTIES TIMEOUT 90 LABELS mpi)
# Over udp the transport's datagram counters grow too.
add_test(NAME mpi.mpit.n2.udp COMMAND ${MPI_UMPRUN} -n 2 --timeout 60 -x UMP_TRANSPORTS=udp
                                      $<TARGET_FILE:mpi_mpit>)
set_tests_properties(mpi.mpit.n2.udp PROPERTIES TIMEOUT 90 LABELS mpi)

# MPI_UNIVERSE_SIZE is the slots umprun was given (6 here, for 2 ranks);
# a singleton's is its own size.
add_test(NAME mpi.comm31.universe
         COMMAND ${MPI_UMPRUN} -n 2 --host localhost:6 --timeout 60 $<TARGET_FILE:mpi_comm31>
                 --expect-universe=6)
set_tests_properties(mpi.comm31.universe PROPERTIES TIMEOUT 90 LABELS mpi)
add_test(NAME mpi.comm31.universe_singleton COMMAND $<TARGET_FILE:mpi_comm31>
                                                    --expect-universe=1)
set_tests_properties(mpi.comm31.universe_singleton PROPERTIES TIMEOUT 60 LABELS mpi)

# MPI_THREAD_MULTIPLE under load (4 threads per rank: point-to-point,
# probes, collectives and communicator, attribute and datatype creation at
# once): 4 ranks over shm and tcp. Label threads (the ThreadSanitizer
# build runs that label).
ump_mpi_program(mpi_thread_stress ${MPI_TEST_DIR}/thread_stress.c ${CMAKE_BINARY_DIR}/tests/mpi
                thread_stress)
foreach(xp shm tcp)
  set(name mpi.thread_stress.n4.${xp})
  add_test(NAME ${name} COMMAND ${MPI_UMPRUN} -n 4 --timeout 240 -x UMP_TRANSPORTS=${xp}
                                $<TARGET_FILE:mpi_thread_stress>)
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS "mpi;threads"
                                          ENVIRONMENT UMP_TRANSPORTS=${xp})
endforeach()

# Intercommunicators: construction, point-to-point and errors (inter), and
# every collective against serial references (inter_coll), with the world
# cut into groups of uneven sizes (1+1, 1+3, 2+2, 2+3, 1+4, 4+5, 1+8, ...).
foreach(prog inter inter_coll)
  ump_mpi_program(mpi_${prog} ${MPI_TEST_DIR}/${prog}.c ${CMAKE_BINARY_DIR}/tests/mpi ${prog})
  foreach(n 2 4 5 9)
    foreach(xp shm tcp)
      set(name mpi.${prog}.n${n}.${xp})
      add_test(NAME ${name}
               COMMAND ${MPI_UMPRUN} -n ${n} --timeout 240 -x UMP_TRANSPORTS=${xp}
                       $<TARGET_FILE:mpi_${prog}>)
      set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS mpi
                                              ENVIRONMENT UMP_TRANSPORTS=${xp})
    endforeach()
  endforeach()
endforeach()

# mpi_n3_runs(<suffix> <env> <variant> <variant env> [ALSO <programs>...]
#             [SKIP <programs>...]): the conformance programs on 3 ranks
# as mpi.<prog>.n3.<suffix> with <env>; those named after ALSO run once more
# as mpi.<prog>.n3.<suffix>.<variant> with <variant env> added, and those
# named after SKIP not at all.
function(mpi_n3_runs suffix env variant venv)
  cmake_parse_arguments(PARSE_ARGV 4 arg "" "" "ALSO;SKIP")
  foreach(prog p2p probe requests comm coll types stress)
    if(prog IN_LIST arg_SKIP)
      continue()
    endif()
    foreach(v "" ".${variant}")
      set(tenv "${env}")
      if(v)
        if(NOT prog IN_LIST arg_ALSO)
          continue()
        endif()
        set(tenv "${env};${venv}")
      endif()
      set(name mpi.${prog}.n3.${suffix}${v})
      add_test(NAME ${name} COMMAND ${MPI_UMPRUN} -n 3 --timeout 180 $<TARGET_FILE:mpi_${prog}>)
      set_tests_properties(${name} PROPERTIES TIMEOUT 240 LABELS mpi ENVIRONMENT "${tenv}")
    endforeach()
  endforeach()
endfunction()

if(UMP_HAVE_OFI)
  # Over the ofi transport, on tcp;ofi_rxm (named ofi_rxm, libfabric's own
  # filter letting only tcp and rxm load: a ctest environment cannot hold
  # the semicolon) and libfabric's shm; `.zc` sends every eager payload
  # from the application's buffer (UMP_OFI_ZC_MIN=1) instead of from 4 KiB on.
  mpi_n3_runs(ofi.rxm "UMP_TRANSPORTS=ofi;UMP_OFI_PROVIDER=ofi_rxm;FI_PROVIDER=tcp,ofi_rxm"
              zc "UMP_OFI_ZC_MIN=1" ALSO p2p requests stress)
  mpi_n3_runs(ofi.shm "UMP_TRANSPORTS=ofi;UMP_OFI_PROVIDER=shm"
              zc "UMP_OFI_ZC_MIN=1" ALSO p2p requests stress)
  # Over libfabric's sockets provider and over udp;ofi_rxd, once each, but
  # not stress (random traffic up to 1 MiB among all ranks) over udp;ofi_rxd:
  # there libfabric 1.17's rxd holds requests for ever in about one run in
  # ten beside other UDP traffic, with rendezvous streamed too (docs/ofi.md);
  # the ofiud runs below carry stress over UDP datagrams.
  mpi_n3_runs(ofi.sockets "UMP_TRANSPORTS=ofi;UMP_OFI_PROVIDER=sockets" none "")
  mpi_n3_runs(ofi.rxd "UMP_TRANSPORTS=ofi;UMP_OFI_PROVIDER=ofi_rxd;FI_PROVIDER=udp,ofi_rxd"
              none "" SKIP stress)
  # Over ofiud (rel over libfabric datagrams), lossless and under the rel
  # fault injection.
  mpi_n3_runs(ofiud "UMP_TRANSPORTS=ofiud;UMP_OFIUD_PROVIDER=udp" faults
              "UMP_REL_DROP=0.05;UMP_REL_DUP=0.02;UMP_REL_REORDER=0.05;UMP_REL_CORRUPT=0.01"
              ALSO p2p coll stress)
endif()

# The names test (tests/mpi/names): a program naming every MPI 3.1 C
# function (and PMPI_ form), constant, predefined handle and type, built
# with the library so that a missing name fails the build, and run to
# check the error classes and handles. The lists are text files (the
# intercommunicator and dynamic-process names in their own); CMake turns
# them into names_list.h.
set(_names_dir ${MPI_TEST_DIR}/names)
set(_names_fn_lists ${_names_dir}/functions.txt ${_names_dir}/functions_inter_dyn.txt)
set(_names_const_lists ${_names_dir}/constants.txt ${_names_dir}/constants_inter_dyn.txt)
set(_names_h "/* Generated by tests/mpi/tests.cmake from the lists in tests/mpi/names. */\n")
foreach(_list ${_names_fn_lists})
  file(STRINGS ${_list} _lines REGEX "^MPI_")
  foreach(_n ${_lines})
    string(STRIP "${_n}" _n)
    string(APPEND _names_h "NAMES_FN(${_n})\n")
  endforeach()
endforeach()
foreach(_list ${_names_const_lists})
  file(STRINGS ${_list} _lines REGEX "^[A-Za-z]")
  foreach(_l ${_lines})
    string(REGEX MATCH "[A-Za-z0-9_]+$" _n "${_l}")
    string(REGEX REPLACE "[ \t]+[A-Za-z0-9_]+$" "" _t "${_l}")
    if(_t STREQUAL "int")
      string(APPEND _names_h "NAMES_INT(${_n})\n")
    elseif(_t MATCHES "^fn[ \t]+")
      string(REGEX REPLACE "^fn[ \t]+" "" _t "${_t}")
      string(APPEND _names_h "NAMES_FNCONST(${_t}, ${_n})\n")
    else()
      string(APPEND _names_h "NAMES_CONST(${_t}, ${_n})\n")
    endif()
  endforeach()
endforeach()
file(STRINGS ${_names_dir}/types.txt _lines REGEX "^MPI_")
foreach(_n ${_lines})
  string(APPEND _names_h "NAMES_TYPE(${_n})\n")
endforeach()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_names_fn_lists}
                                                               ${_names_const_lists}
                                                               ${_names_dir}/types.txt)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/tests/mpi/gen/names_list.h CONTENT "${_names_h}"
     @ONLY)
ump_mpi_program(mpi_names ${_names_dir}/names.c ${CMAKE_BINARY_DIR}/tests/mpi names)
target_include_directories(mpi_names PRIVATE ${CMAKE_BINARY_DIR}/tests/mpi/gen)
add_test(NAME mpi.names COMMAND $<TARGET_FILE:mpi_names>)
set_tests_properties(mpi.names PROPERTIES TIMEOUT 30 LABELS mpi)
