# SPDX-License-Identifier: BSD-3-Clause
# Launcher tests: small rt programs (the calls ump_init makes) driven through
# umprun, directly or by the shell scripts here. Labels: launch.
set(LAUNCH_DIR ${CMAKE_CURRENT_LIST_DIR})
foreach(prog launch_kvs launch_fault launch_spawn)
  add_executable(${prog} ${LAUNCH_DIR}/${prog}.c)
  target_link_libraries(${prog} PRIVATE ump_static Threads::Threads)
  target_compile_options(${prog} PRIVATE ${UMP_WARNINGS})
  set_target_properties(${prog} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
endforeach()

set(UMPRUN_EXE $<TARGET_FILE:umprun>)
set(KVS_EXE $<TARGET_FILE:launch_kvs>)
set(FAULT_EXE $<TARGET_FILE:launch_fault>)

# put / fence / get among n ranks (8 ranks oversubscribe the 2-core machine).
foreach(n 1 2 4 8)
  add_test(NAME launch.kvs.n${n} COMMAND ${UMPRUN_EXE} --timeout 20 -n ${n} ${KVS_EXE})
  set_tests_properties(launch.kvs.n${n} PROPERTIES TIMEOUT 30 LABELS launch)
endforeach()
add_test(NAME launch.kvs.bind_core COMMAND ${UMPRUN_EXE} --timeout 20 --bind-to core -n 8 ${KVS_EXE})
# Without a launcher the same program is a singleton job.
add_test(NAME launch.kvs.singleton COMMAND ${KVS_EXE})
set_tests_properties(launch.kvs.bind_core launch.kvs.singleton PROPERTIES TIMEOUT 30 LABELS launch)

add_test(NAME launch.basic COMMAND bash ${LAUNCH_DIR}/basic.sh ${UMPRUN_EXE} ${FAULT_EXE})
add_test(NAME launch.auth COMMAND bash ${LAUNCH_DIR}/auth.sh ${UMPRUN_EXE} ${FAULT_EXE})
set_tests_properties(launch.basic launch.auth PROPERTIES TIMEOUT 60 LABELS launch)

# Faults: name  mode  victim  others-wait  exit-status  text naming the rank
set(LAUNCH_FAULTS
    "abort|abort|1|fence|134|rank 1 .* was killed by SIGABRT"
    "selfkill9|kill9|2|fence|137|rank 2 .* was killed by SIGKILL"
    "killed_fence|killed|1|fence|137|-"
    "killed_spin|killed|2|spin|137|-"
    "exit3|exit3|0|spin|3|rank 0 .* exited with code 3"
    "stubborn|exit3|2|stubborn|3|rank 2 .* exited with code 3"
    "exit0_nofini|exit0|1|fence|1|rank 1 .* exited with code 0 after initializing ump without finalizing"
    "rt_abort|rtabort|3|sleep|7|rank 3 .* called abort with code 7: custom abort message")
foreach(f ${LAUNCH_FAULTS})
  string(REPLACE "|" ";" f "${f}")
  list(GET f 0 name)
  list(SUBLIST f 1 5 args)
  add_test(NAME launch.fault.${name}
           COMMAND bash ${LAUNCH_DIR}/fault.sh ${UMPRUN_EXE} ${FAULT_EXE} ${args})
  set_tests_properties(launch.fault.${name} PROPERTIES TIMEOUT 30 LABELS launch)
endforeach()

# Processes started at run time (ump_rt_spawn): groups, refusals, forged
# requests, a failing spawned rank.
add_test(NAME launch.spawn COMMAND bash ${LAUNCH_DIR}/spawn.sh ${UMPRUN_EXE}
                                   $<TARGET_FILE:launch_spawn>)
set_tests_properties(launch.spawn PROPERTIES TIMEOUT 240 LABELS launch)

add_test(NAME launch.netns COMMAND bash ${LAUNCH_DIR}/netns.sh ${UMPRUN_EXE} ${KVS_EXE})
set_tests_properties(launch.netns PROPERTIES TIMEOUT 60 LABELS launch SKIP_RETURN_CODE 77)

# Output: shown live and before umprun's verdict on MPI_Abort and fatal MPI
# errors, --output-filename, MPI_Get_processor_name under umprun.
add_executable(launch_output ${LAUNCH_DIR}/launch_output.c)
target_link_libraries(launch_output PRIVATE ump Threads::Threads)
target_include_directories(launch_output PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_compile_options(launch_output PRIVATE ${UMP_WARNINGS})
set_target_properties(launch_output PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME launch.output COMMAND bash ${LAUNCH_DIR}/output.sh ${UMPRUN_EXE}
                                    $<TARGET_FILE:launch_output>)
set_tests_properties(launch.output PROPERTIES TIMEOUT 300 LABELS launch)

# The options of Open MPI's mpirun and MPICH's mpiexec, the program lookup,
# and the mpiexec/mpirun names.
add_test(NAME launch.options COMMAND bash ${LAUNCH_DIR}/options.sh ${UMPRUN_EXE}
                                     ${CMAKE_BINARY_DIR}/bin)
set_tests_properties(launch.options PROPERTIES TIMEOUT 240 LABELS launch)

# examples/: built with their Makefile and the build tree's umpcc, each run
# on 2-4 ranks.
add_test(NAME examples COMMAND bash ${LAUNCH_DIR}/examples.sh ${CMAKE_BINARY_DIR}
                               ${CMAKE_SOURCE_DIR}/examples)
set_tests_properties(examples PROPERTIES TIMEOUT 300 LABELS launch)

# The fault campaign (scripts/fault-campaign.sh): a random rank killed with
# SIGKILL at a random moment of each kind of operation; the short form here,
# 5 trials per kind (100 in docs/reliability.md). Label: fault.
add_executable(launch_ops ${LAUNCH_DIR}/launch_ops.c)
target_link_libraries(launch_ops PRIVATE ump)
target_include_directories(launch_ops PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_compile_options(launch_ops PRIVATE ${UMP_WARNINGS})
set_target_properties(launch_ops PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME launch.fault_campaign
         COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/fault-campaign.sh --trials 5 --umprun ${UMPRUN_EXE}
                 --prog $<TARGET_FILE:launch_ops>)
set_tests_properties(launch.fault_campaign PROPERTIES TIMEOUT 300 LABELS "launch;fault" RUN_SERIAL TRUE)
