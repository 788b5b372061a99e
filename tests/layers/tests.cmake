# SPDX-License-Identifier: BSD-3-Clause
# The include graph of src/ follows src/layers.txt (no upward edge, no
# cycle); and the checker itself finds a planted upward include.
add_test(NAME layers.includes COMMAND ${CMAKE_CURRENT_LIST_DIR}/check.sh ${CMAKE_SOURCE_DIR})
add_test(NAME layers.checker_fails_on_upward_include
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/selftest.sh ${CMAKE_CURRENT_LIST_DIR}/check.sh)
set_tests_properties(layers.includes layers.checker_fails_on_upward_include
                     PROPERTIES TIMEOUT 60 LABELS layers)
