# SPDX-License-Identifier: BSD-3-Clause
# Launcher tests: small rt programs driven through umprun by shell scripts.
set(LAUNCH_DIR ${CMAKE_CURRENT_LIST_DIR})
foreach(prog launch_kvs)
  add_executable(${prog} ${LAUNCH_DIR}/${prog}.c)
  target_link_libraries(${prog} PRIVATE ump_static)
  target_compile_options(${prog} PRIVATE ${UMP_WARNINGS})
  set_target_properties(${prog} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
endforeach()
