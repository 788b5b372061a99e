# SPDX-License-Identifier: BSD-3-Clause
# The Java binding's tests (label java): self-checking Java programs run
# through umprun (java.<prog>.n<N>[.<variant>]), a job where a Java rank and
# a C rank talk (java.mixed), `umprun -n 2 java Smoke.java` with no class
# path (java.umprun_auto) and umpjavac (java.umpjavac). A JVM starts in
# about half a second per rank on a loaded 2-core machine: generous timeouts.
if(UMP_SANITIZE)
  # A sanitized libump needs the sanitizer runtime first in the process, and
  # the JVM (which uses SIGSEGV itself) does not start with it preloaded.
  message(STATUS "bindings/java: tests not registered in a sanitizer build (the JVM cannot "
                 "host the ASan runtime); the gcc and clang Release builds run them")
  return()
endif()
set(UJT ${CMAKE_CURRENT_LIST_DIR})
file(GLOB UMP_JAVA_TEST_SOURCES CONFIGURE_DEPENDS ${UJT}/java/*.java)
list(FILTER UMP_JAVA_TEST_SOURCES EXCLUDE REGEX "Smoke\\.java$")
add_jar(ump_java_tests SOURCES ${UMP_JAVA_TEST_SOURCES} INCLUDE_JARS ump_jar
        OUTPUT_NAME ump_tests OUTPUT_DIR ${CMAKE_BINARY_DIR}/tests/java)

add_executable(java_c_peer ${UJT}/c_peer.c)
target_link_libraries(java_c_peer PRIVATE ump)
target_compile_options(java_c_peer PRIVATE ${UMP_WARNINGS})
set_target_properties(java_c_peer PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/java
                                             OUTPUT_NAME c_peer)

set(UJT_CP ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/ump.jar:${CMAKE_BINARY_DIR}/tests/java/ump_tests.jar)
set(UJT_RUN $<TARGET_FILE:umprun>)

# name ranks transport java-options program args...
function(ump_java_test name n xp)
  add_test(NAME java.${name}
           COMMAND ${UJT_RUN} -n ${n} --timeout 150 -x UMP_TRANSPORTS=${xp} java -cp ${UJT_CP}
                   ${ARGN})
  set_tests_properties(java.${name} PROPERTIES TIMEOUT 200 LABELS java
                                               ENVIRONMENT UMP_TRANSPORTS=${xp})
endfunction()

ump_java_test(p2p.n2.shm 2 shm P2p)
ump_java_test(p2p.n3.tcp 3 tcp P2p)
# Both heap-array paths at every size: all pinned, all copied.
ump_java_test(p2p.n2.pinned 2 shm -Dump.java.pinThreshold=0 P2p)
ump_java_test(p2p.n2.copied 2 shm -Dump.java.pinThreshold=1000000000 P2p)
ump_java_test(coll.n1.shm 1 shm Coll)
ump_java_test(coll.n2.shm 2 shm Coll)
ump_java_test(coll.n3.shm 3 shm Coll)
ump_java_test(coll.n4.tcp 4 tcp Coll)
ump_java_test(coll.n3.pinned 3 shm -Dump.java.pinThreshold=0 Coll)
ump_java_test(types.n2.shm 2 shm Types)
ump_java_test(types.n2.tcp 2 tcp Types)
ump_java_test(rma.n2.shm 2 shm Rma)
ump_java_test(rma.n3.shm 3 shm Rma)
ump_java_test(rma.n3.tcp 3 tcp Rma)
ump_java_test(comms.n3.shm 3 shm Comms)
ump_java_test(comms.n4.shm 4 shm Comms)
ump_java_test(inter.n2.shm 2 shm Inter)
ump_java_test(inter.n3.shm 3 shm Inter)
ump_java_test(inter.n4.tcp 4 tcp Inter)
ump_java_test(topo.n3.shm 3 shm Topo)
ump_java_test(topo.n4.shm 4 shm Topo)
ump_java_test(topo.n4.tcp 4 tcp Topo)
# Java parents spawn Java children (java with the test's class path).
ump_java_test(spawn.n1.shm_tcp 1 shm,tcp Spawn)
ump_java_test(spawn.n2.tcp 2 tcp Spawn)
ump_java_test(extras.n2.shm 2 shm Extras)
ump_java_test(extras.n3.tcp 3 tcp Extras)
ump_java_test(extras.n4.shm 4 shm Extras)
ump_java_test(errors.n2.shm 2 shm Errors)
ump_java_test(windows.n2.shm 2 shm Windows)
ump_java_test(windows.n2.tcp 2 tcp Windows)
ump_java_test(gc.n2.shm 2 shm Gc)
ump_java_test(gc.n2.tcp 2 tcp Gc)
ump_java_test(threads.multiple.n2 2 shm Threads 3)
ump_java_test(threads.funneled.n2 2 shm Threads 1)

# Java rank 0 and C rank 1 in one job (umprun gives each rank UMP_JOB_RANK).
add_test(NAME java.mixed.n2
         COMMAND ${UJT_RUN} -n 2 --timeout 150 sh -c
                 "if [ \"$UMP_JOB_RANK\" = 0 ]; then exec java -cp ${UJT_CP} Mixed; else exec $<TARGET_FILE:java_c_peer>; fi")
set_tests_properties(java.mixed.n2 PROPERTIES TIMEOUT 200 LABELS java)

# No flags, no CLASSPATH: umprun finds ump.jar from its own location.
add_test(NAME java.umprun_auto COMMAND ${UJT_RUN} -n 2 --timeout 150 java ${UJT}/java/Smoke.java)
set_tests_properties(java.umprun_auto PROPERTIES TIMEOUT 200 LABELS java
                     ENVIRONMENT_MODIFICATION CLASSPATH=unset:
                     PASS_REGULAR_EXPRESSION "Smoke OK on 2 ranks")

# umpjavac: -show names the jar; a real compile produces a class that runs.
add_test(NAME java.umpjavac
         COMMAND sh -c "set -e; d=$(mktemp -d); trap 'rm -rf $d' EXIT;
                        ${CMAKE_BINARY_DIR}/bin/umpjavac -show X.java | grep -q 'ump.jar';
                        ${CMAKE_BINARY_DIR}/bin/umpjavac -d $d ${UJT}/java/Smoke.java;
                        cd $d; CLASSPATH=${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/ump.jar:. ${UJT_RUN} -n 1 --timeout 100 java Smoke")
set_tests_properties(java.umpjavac PROPERTIES TIMEOUT 200 LABELS java
                     PASS_REGULAR_EXPRESSION "Smoke OK on 1 ranks")

# The benchmarks run and check their data (no timing is asserted).
if(TARGET ump_java_bench)
  set(UJB_CP ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/ump.jar:${CMAKE_BINARY_DIR}/bench/java/ump_bench.jar)
  foreach(b "Latency;--max;64k" "Latency;--array;--max;1m" "Bandwidth;--max;64k"
            "Bandwidth;--array;--max;16k" "Coll;--sizes;8,1k,64k" "Coll;--array;--sizes;8,64k"
            "Calls" "Calls;--pin;--max;64k" "Crossover;--max;64k" "Paired;--max;1k;--rounds;1"
            "Paired;--bandwidth;--max;256k;--rounds;1")
    list(GET b 0 cls)
    string(REPLACE ";" "_" nm "${b}")
    string(REPLACE "--" "" nm "${nm}")
    string(REPLACE "," "_" nm "${nm}")
    add_test(NAME java.bench.${nm}
             COMMAND ${UJT_RUN} -n 2 --timeout 150 java -cp ${UJB_CP} ${b} --quick --time 0.002)
    set_tests_properties(java.bench.${nm} PROPERTIES TIMEOUT 200 LABELS java)
  endforeach()
  # Their CSV rows carry the hop columns bench/compare places points by.
  foreach(b "Latency;--max;64" "Bandwidth;--max;64k" "Crossover;--max;4k"
            "Paired;--max;64;--rounds;1")
    list(GET b 0 cls)
    add_test(NAME java.bench.csv.${cls}
             COMMAND sh ${UJT}/bench_csv.sh ${UJT_RUN} ${UJB_CP} ${b} --quick --time 0.002)
    set_tests_properties(java.bench.csv.${cls} PROPERTIES TIMEOUT 200 LABELS java)
  endforeach()
endif()

# The installed binding, used from outside the build tree.
add_test(NAME java.install
         COMMAND sh ${UJT}/install_test.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR} ${UJT}/java/Smoke.java)
set_tests_properties(java.install PROPERTIES TIMEOUT 240 LABELS "java;install"
                     PASS_REGULAR_EXPRESSION "Smoke OK on 2 ranks")
