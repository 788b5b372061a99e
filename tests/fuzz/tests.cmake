# SPDX-License-Identifier: BSD-3-Clause
# Fuzzing (README: docs/reliability.md).
#
# fuzz.replay.<h>  every harness built with the project's compiler and run
#                  over its seed corpus and the inputs of crashes once found
#                  (tests/fuzz/regress/<h>): plain unit tests, always run.
# fuzz.run.<h>     libFuzzer for 30 s per harness (run.sh, clang with the
#                  fuzzer runtime, its own build dir); when clang or the
#                  runtime is missing, one test fuzz.run says why and skips.
set(FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
include(${FUZZ_DIR}/harnesses.cmake)
file(GLOB FUZZ_UMPRUN_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/umprun/*.c)
list(FILTER FUZZ_UMPRUN_SOURCES EXCLUDE REGEX "/main\\.c$")

foreach(h ${UMP_FUZZ_HARNESSES})
  set(srcs ${FUZZ_DIR}/fuzz_${h}.c ${FUZZ_DIR}/replay.c)
  if(h IN_LIST UMP_FUZZ_UMPRUN_HARNESSES)
    list(APPEND srcs ${FUZZ_UMPRUN_SOURCES} ${FUZZ_DIR}/umprun_fuzz.c)
  endif()
  add_executable(fuzz_replay_${h} ${srcs})
  target_link_libraries(fuzz_replay_${h} PRIVATE ump_static m)
  target_include_directories(fuzz_replay_${h} PRIVATE ${CMAKE_SOURCE_DIR}/tools/umprun ${FUZZ_DIR})
  target_compile_options(fuzz_replay_${h} PRIVATE ${UMP_WARNINGS})
  set_target_properties(fuzz_replay_${h} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  set(inputs ${FUZZ_DIR}/corpus/${h})
  if(EXISTS ${FUZZ_DIR}/regress/${h})
    list(APPEND inputs ${FUZZ_DIR}/regress/${h})
  endif()
  add_test(NAME fuzz.replay.${h} COMMAND fuzz_replay_${h} ${inputs})
  set_tests_properties(fuzz.replay.${h} PROPERTIES TIMEOUT 120 LABELS fuzz)
endforeach()

# Regenerates the seed corpus: gen_corpus tests/fuzz/corpus
add_executable(fuzz_gen_corpus ${FUZZ_DIR}/gen_corpus.c)
target_link_libraries(fuzz_gen_corpus PRIVATE ump_static)
target_compile_options(fuzz_gen_corpus PRIVATE ${UMP_WARNINGS})
set_target_properties(fuzz_gen_corpus PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

# The short libFuzzer runs, when clang can link -fsanitize=fuzzer. They
# build and fuzz the same code whatever this build's compiler, so a test
# script running several builds turns them on in one (UMP_FUZZ_RUN).
option(UMP_FUZZ_RUN "Register the libFuzzer runs (fuzz.build, fuzz.run.*) as tests" ON)
if(NOT UMP_FUZZ_RUN)
  return()
endif()
find_program(UMP_FUZZ_CLANG NAMES clang clang-14)
set(UMP_FUZZ_WHY "")
if(NOT UMP_FUZZ_CLANG)
  set(UMP_FUZZ_WHY "no clang found (Debian: clang libclang-rt-14-dev)")
else()
  set(probe ${CMAKE_BINARY_DIR}/fuzz-probe)
  file(MAKE_DIRECTORY ${probe})
  file(WRITE ${probe}/p.c "int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }\n")
  execute_process(COMMAND ${UMP_FUZZ_CLANG} -fsanitize=fuzzer,address,undefined p.c -o p
                  WORKING_DIRECTORY ${probe} RESULT_VARIABLE probe_rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT probe_rc EQUAL 0)
    set(UMP_FUZZ_WHY "${UMP_FUZZ_CLANG} cannot link -fsanitize=fuzzer,address,undefined (Debian: libclang-rt-14-dev)")
  endif()
endif()
set(FUZZ_BUILD ${CMAKE_BINARY_DIR}/fuzz)
if(UMP_FUZZ_WHY STREQUAL "")
  add_test(NAME fuzz.build COMMAND bash ${FUZZ_DIR}/run.sh --build-dir ${FUZZ_BUILD} --build-only)
  set_tests_properties(fuzz.build PROPERTIES TIMEOUT 900 LABELS fuzz FIXTURES_SETUP fuzz_bin
                                             SKIP_RETURN_CODE 77)
  foreach(h ${UMP_FUZZ_HARNESSES})
    add_test(NAME fuzz.run.${h}
             COMMAND bash ${FUZZ_DIR}/run.sh --build-dir ${FUZZ_BUILD} --no-build --time 30 ${h})
    set_tests_properties(fuzz.run.${h} PROPERTIES TIMEOUT 120 LABELS fuzz FIXTURES_REQUIRED fuzz_bin
                                                  SKIP_RETURN_CODE 77)
  endforeach()
else()
  add_test(NAME fuzz.run COMMAND sh -c "echo 'fuzz.run: SKIP: ${UMP_FUZZ_WHY}'; exit 77")
  set_tests_properties(fuzz.run PROPERTIES LABELS fuzz SKIP_RETURN_CODE 77)
endif()
