# SPDX-License-Identifier: BSD-3-Clause
# Label `threads`: every test whose processes run several threads that call
# ump at once. The ThreadSanitizer build (scripts/test.sh, build-tsan) runs
# this label only. Matched by name here, after every test is registered, so
# that a new run of a threaded program is labelled without a second list.
set(UMP_THREADED_TESTS
    "^mp\\.threads\\."
    "^mpi\\.thread_stress\\."
    "^mpi\\.env_thread_multiple\\."
    "^mpi\\.rma_mt\\."
    "^mpi\\.grequest\\."
    "^coll\\.coll_threads\\.n[1-4]$"
    "^dt\\.edge\\.threads\\."
    "^unit\\.mpi_init$"
    "^unit\\.rt_client$")
get_property(all_tests DIRECTORY PROPERTY TESTS)
foreach(t ${all_tests})
  foreach(re ${UMP_THREADED_TESTS})
    if(t MATCHES "${re}")
      get_test_property(${t} LABELS labels)
      if(NOT labels MATCHES "(^|;)threads(;|$)")
        set_property(TEST ${t} APPEND PROPERTY LABELS threads)
      endif()
      break()
    endif()
  endforeach()
endforeach()
