# SPDX-License-Identifier: BSD-3-Clause
# PMIx bootstrap tests (label pmix): a throwaway two-node Slurm cluster on
# this machine runs `srun --mpi=pmix`, and Open MPI's mpirun serves as a
# second PMIx server. The scripts install what they need (slurmd slurmctld
# slurm-client munge libpmix-dev openmpi-bin) or skip (77) with the reason.
set(PMIX_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})
add_executable(pmix_rt ${PMIX_TEST_DIR}/pmix_rt.c)
add_executable(pmix_p2p ${PMIX_TEST_DIR}/pmix_p2p.c)
foreach(prog pmix_rt pmix_p2p)
  target_link_libraries(${prog} PRIVATE ump_static)
  target_compile_options(${prog} PRIVATE ${UMP_WARNINGS})
  set_target_properties(${prog} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
endforeach()

# Whether the data test can expect shm between ranks of a node and tcp
# between nodes (the transports are in the tree).
if(EXISTS ${CMAKE_SOURCE_DIR}/src/xport/shm AND EXISTS ${CMAKE_SOURCE_DIR}/src/xport/tcp)
  set(PMIX_XPORTS shm,tcp)
else()
  set(PMIX_XPORTS none)
endif()

set(PMIX_ARGS ${UMP_HAVE_PMIX} ${CMAKE_BINARY_DIR} $<TARGET_FILE:pmix_rt>
              $<TARGET_FILE:pmix_p2p> ${PMIX_XPORTS})
add_test(NAME pmix.slurm COMMAND bash ${PMIX_TEST_DIR}/slurm.sh ${PMIX_ARGS})
add_test(NAME pmix.mpirun COMMAND bash ${PMIX_TEST_DIR}/mpirun.sh ${PMIX_ARGS}
                                  $<TARGET_FILE:mpi_spawn>)
# Both build trees (build/, build-asan/) may run at once in CI: the Slurm
# test takes its own ports and directories, so only the lock on apt matters.
# The time limits leave room for the first run's apt-get install and, when
# the tree was configured without libpmix, a private build of the two
# programs; after that the tests take ~10 s each.
set_tests_properties(pmix.slurm PROPERTIES TIMEOUT 300 LABELS pmix SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
                     RESOURCE_LOCK apt)
set_tests_properties(pmix.mpirun PROPERTIES TIMEOUT 300 LABELS pmix SKIP_RETURN_CODE 77
                     RESOURCE_LOCK apt)

# Backend selection from the environment; needs no PMIx server.
if(TARGET umprun)
  add_test(NAME pmix.select COMMAND bash ${PMIX_TEST_DIR}/select.sh ${UMP_HAVE_PMIX}
                                    $<TARGET_FILE:umprun> $<TARGET_FILE:pmix_rt>)
  set_tests_properties(pmix.select PROPERTIES TIMEOUT 60 LABELS pmix)
endif()
