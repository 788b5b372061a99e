# SPDX-License-Identifier: BSD-3-Clause
# The fuzz harnesses (tests/fuzz/fuzz_<name>.c), shared by the libFuzzer
# build (CMakeLists.txt here) and the test suite's replay build (tests.cmake).
set(UMP_FUZZ_HARNESSES kvs_server tcp_frame rel hosts umprun_args config)
# Those that link umprun's sources.
set(UMP_FUZZ_UMPRUN_HARNESSES kvs_server hosts umprun_args)
