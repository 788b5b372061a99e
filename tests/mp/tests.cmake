# SPDX-License-Identifier: BSD-3-Clause
# Multi-process tests: each tests/mp/<prog>.c is one program against ump.h, run
# through umprun once per transport (ctest mp.<prog>.shm / mp.<prog>.tcp), plus
# runs that shrink the protocol thresholds, a singleton run without the
# launcher, and two-"host" runs in network namespaces (mp.<prog>.netns, skipped
# with code 77 where namespaces cannot be made).
set(UMP_MP_DIR ${CMAKE_CURRENT_LIST_DIR})
set(UMP_MP_PROGS sizes wildcards order many self truncate ssend probe cancel alltoall flood init
                 storm finalize threads credits wake oom meet rget)
# ext tests the calls ump.h gained for the MPI layer (matched probe, greq,
# hooks, node ids); it is built once the core defines them.
file(GLOB_RECURSE ump_mp_core_src ${CMAKE_SOURCE_DIR}/src/core/*.c)
set(UMP_MP_HAVE_EXT FALSE)
foreach(f ${ump_mp_core_src})
  file(STRINGS ${f} hit REGEX "^int ump_improbe\\(")
  if(hit)
    set(UMP_MP_HAVE_EXT TRUE)
  endif()
endforeach()
if(UMP_MP_HAVE_EXT)
  list(APPEND UMP_MP_PROGS ext)
else()
  message(STATUS "core has no ump_improbe yet: mp.ext.* not built")
endif()

foreach(prog ${UMP_MP_PROGS})
  add_executable(mp_${prog} ${UMP_MP_DIR}/${prog}.c)
  target_link_libraries(mp_${prog} PRIVATE ump)
  target_compile_options(mp_${prog} PRIVATE ${UMP_WARNINGS})
  set_target_properties(mp_${prog} PROPERTIES OUTPUT_NAME ${prog}
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/mp)
endforeach()
target_link_libraries(mp_threads PRIVATE Threads::Threads)

# ump_mp_test(<test name> <prog> <ranks> <timeout s> [ARGS ...] [ENV ...])
# The launcher kills the job after <timeout>; ctest's own timeout is a little
# longer so the launcher's report (which rank hung) is what one reads.
function(ump_mp_test name prog np timeout)
  cmake_parse_arguments(MP "" "" "ARGS;ENV" ${ARGN})
  add_test(NAME mp.${name}
           COMMAND $<TARGET_FILE:umprun> -n ${np} --timeout ${timeout} --tag-output
                   $<TARGET_FILE:mp_${prog}> ${MP_ARGS})
  math(EXPR ctest_timeout "${timeout} + 15")
  set_tests_properties(mp.${name} PROPERTIES TIMEOUT ${ctest_timeout} LABELS mp
                       ENVIRONMENT "${MP_ENV}")
endfunction()

# ump_mp_log_test(<name> <prog> <regex> ENV ...): sizes-style run of 2
# ranks up to 1 MiB that must pass and whose output must match <regex>
# (a count the transport logs at close, with UMP_LOG=debug in ENV).
function(ump_mp_log_test name prog regex)
  cmake_parse_arguments(MP "" "" "ENV" ${ARGN})
  add_test(NAME mp.${name}
           COMMAND sh -c "out=$(\"$0\" -n 2 --timeout 120 --tag-output \"$1\" --max 1m 2>&1); \
rc=$?; printf '%s\\n' \"$out\"; [ $rc = 0 ] || exit $rc; \
printf '%s\\n' \"$out\" | grep -Eq \"$2\""
                   $<TARGET_FILE:umprun> $<TARGET_FILE:mp_${prog}> "${regex}")
  set_tests_properties(mp.${name} PROPERTIES TIMEOUT 135 LABELS mp ENVIRONMENT "${MP_ENV}")
endfunction()

# ump_mp_netns(<prog> <timeout s> [args...]): 4 ranks on two namespaces.
function(ump_mp_netns prog timeout)
  add_test(NAME mp.${prog}.netns
           COMMAND ${CMAKE_SOURCE_DIR}/scripts/netns-run.sh -n 4 --timeout ${timeout}
                   --tag-output $<TARGET_FILE:mp_${prog}> ${ARGN})
  math(EXPR ctest_timeout "${timeout} + 20")
  set_tests_properties(mp.${prog}.netns PROPERTIES TIMEOUT ${ctest_timeout} LABELS "mp;netns"
                       SKIP_RETURN_CODE 77 ENVIRONMENT "UMPRUN=$<TARGET_FILE:umprun>")
endfunction()

if(NOT TARGET umprun)
  message(STATUS "umprun not built: multi-process tests are not registered")
  return()
endif()

foreach(t shm tcp udp)
  set(env UMP_TRANSPORTS=${t})
  ump_mp_test(sizes.${t} sizes 2 90 ENV ${env})
  ump_mp_test(wildcards.${t} wildcards 4 60 ENV ${env})
  ump_mp_test(order.${t} order 2 60 ENV ${env})
  ump_mp_test(many.${t} many 2 60 ENV ${env})
  ump_mp_test(self.${t} self 2 60 ENV ${env})
  ump_mp_test(truncate.${t} truncate 2 60 ENV ${env})
  ump_mp_test(ssend.${t} ssend 2 60 ENV ${env})
  ump_mp_test(probe.${t} probe 2 60 ENV ${env})
  ump_mp_test(cancel.${t} cancel 2 60 ENV ${env})
  # 8 ranks on 2 cores: must finish in seconds, not minutes, with UMP_WAIT=auto.
  ump_mp_test(alltoall.${t} alltoall 8 60 ENV ${env} UMP_WAIT=auto)
  ump_mp_test(flood.${t} flood 2 90 ENV ${env})
  # Receives in reverse order of sends that overflow the credit window.
  ump_mp_test(credits.${t} credits 2 60 ENV ${env})
  ump_mp_test(init.${t} init 3 30 ARGS 3 ENV ${env})
  ump_mp_test(finalize.${t} finalize 2 20 ENV ${env})
  ump_mp_test(threads.${t} threads 2 60 ENV ${env})
  # Sleeping waits with several threads: a thread whose request another
  # thread completed must be woken, not left to its sleep's timeout.
  ump_mp_test(threads.${t}.block threads 2 60 ENV ${env} UMP_WAIT=block)
  # Random all-to-all traffic, wildcard receives, completions through ump_peek.
  ump_mp_test(storm.${t} storm 4 60 ENV ${env})
  # Matched probe, request status, generalized requests, hooks, node ids.
  if(UMP_MP_HAVE_EXT)
    ump_mp_test(ext.${t} ext 4 30 ENV ${env})
  endif()
endforeach()

# One-sided reads of a peer's memory: tcp must read (also with a send
# queue of 64 KiB, which refuses read requests until earlier ones are
# answered), shm and udp must refuse (ofi too, below).
ump_mp_test(rget.tcp rget 3 60 ARGS --must ENV UMP_TRANSPORTS=tcp)
ump_mp_test(rget.tcp.pieces rget 2 60 ARGS --must ENV UMP_TRANSPORTS=tcp UMP_TCP_QUEUE_MAX=64k)
ump_mp_test(rget.shm rget 2 60 ENV UMP_TRANSPORTS=shm)
ump_mp_test(rget.udp rget 3 60 ENV UMP_TRANSPORTS=udp)

# Ports, names and join: cards from 0 bytes to 1 MiB, another job's port
# refused, the name service of umprun and of a singleton.
ump_mp_test(meet.shm meet 2 60 ENV UMP_TRANSPORTS=shm)
ump_mp_test(meet.tcp meet 3 90 ENV UMP_TRANSPORTS=tcp)

# Every protocol path with small data: shrunken thresholds. UMP_SHM_CMA=0
# with a CMA threshold set is the "CMA not permitted" fallback.
ump_mp_test(sizes.shm.small-cma sizes 2 90 ARGS --max 1m
            ENV UMP_TRANSPORTS=shm UMP_SHM_EAGER_LIMIT=256 UMP_SHM_SEG_SIZE=1k
                UMP_SHM_CMA_MIN=4096 UMP_SHM_CMA=1)
ump_mp_test(sizes.shm.small-nocma sizes 2 90 ARGS --max 1m
            ENV UMP_TRANSPORTS=shm UMP_SHM_EAGER_LIMIT=256 UMP_SHM_SEG_SIZE=1k
                UMP_SHM_CMA_MIN=4096 UMP_SHM_CMA=0)
# Single-copy (process_vm_readv) for every message from 256 KiB up, to 16 MiB.
ump_mp_test(sizes.shm.cma sizes 2 90 ENV UMP_TRANSPORTS=shm UMP_SHM_CMA_MIN=256k UMP_SHM_CMA=1)
ump_mp_test(sizes.tcp.small sizes 2 90 ARGS --max 1m
            ENV UMP_TRANSPORTS=tcp UMP_TCP_EAGER_LIMIT=1k UMP_TCP_SEG_SIZE=4k)
ump_mp_test(order.shm.small order 2 60
            ENV UMP_TRANSPORTS=shm UMP_SHM_EAGER_LIMIT=256 UMP_SHM_SEG_SIZE=1k UMP_SHM_CMA_MIN=4096)
ump_mp_test(order.tcp.small order 2 60
            ENV UMP_TRANSPORTS=tcp UMP_TCP_EAGER_LIMIT=1k UMP_TCP_SEG_SIZE=4k)

# Fan-in flood: three senders, one receiver.
ump_mp_test(flood.shm.fanin flood 4 90 ENV UMP_TRANSPORTS=shm)
ump_mp_test(flood.tcp.fanin flood 4 90 ENV UMP_TRANSPORTS=tcp)

# Ranks started with different eager limits and segments over tcp and udp
# (whose receivers accept no message larger than their own largest): the
# job must fail with an error naming the sender and the variables, not a
# bare "corrupted frame" or a silent drop (udp's sender gives up after
# UMP_REL_TIMEOUT).
foreach(t tcp udp)
  string(TOUPPER ${t} T)
  add_test(NAME mp.storm.${t}.mismatch
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/mpi/fatal.sh
                   "rank 1 .*sen[dt]s? a? ?[0-9]+-byte messages?, larger than this rank's largest"
                   $<TARGET_FILE:umprun> -n 2 --timeout 50 sh ${UMP_MP_DIR}/rank_env.sh 0
                   UMP_${T}_EAGER_LIMIT=2k UMP_${T}_SEG_SIZE=4k -- sh ${UMP_MP_DIR}/rank_env.sh 1
                   UMP_${T}_EAGER_LIMIT=60k UMP_${T}_SEG_SIZE=60k -- $<TARGET_FILE:mp_storm>)
  set_tests_properties(mp.storm.${t}.mismatch PROPERTIES TIMEOUT 75 LABELS mp
                       ENVIRONMENT "UMP_TRANSPORTS=${t};UMP_REL_TIMEOUT=5")
endforeach()

# Sleeping waits (no lost wake-ups), and oversubscribed random traffic.
ump_mp_test(storm.shm.block storm 4 60 ENV UMP_TRANSPORTS=shm UMP_WAIT=block)
ump_mp_test(storm.tcp.block storm 4 60 ENV UMP_TRANSPORTS=tcp UMP_WAIT=block)
ump_mp_test(storm.shm.8 storm 8 60 ARGS 150 ENV UMP_TRANSPORTS=shm UMP_WAIT=auto)
ump_mp_test(sizes.shm.block sizes 2 90 ARGS --max 1m ENV UMP_TRANSPORTS=shm UMP_WAIT=block)
# Every wait sleeps at once: the shm wake-up handshake in each of its forms
# (senders without a fence and the sleeper's membarrier; fences on both
# sides; the pending bitmap), then tcp and udp.
set(wake_env UMP_WAIT=block UMP_WAIT_SPIN_US=1)
ump_mp_test(wake.shm wake 2 60 ENV UMP_TRANSPORTS=shm ${wake_env})
ump_mp_test(wake.shm.fence wake 2 60 ENV UMP_TRANSPORTS=shm UMP_SHM_MEMBARRIER=no ${wake_env})
ump_mp_test(wake.shm.8 wake 8 90 ARGS 800 ENV UMP_TRANSPORTS=shm UMP_SHM_MEMBARRIER=yes ${wake_env})
ump_mp_test(wake.shm.bitmap wake 2 60 ENV UMP_TRANSPORTS=shm UMP_SHM_POLL_MAX=0 ${wake_env})
ump_mp_test(wake.shm.4 wake 4 90 ARGS 1500 ENV UMP_TRANSPORTS=shm ${wake_env})
ump_mp_test(wake.tcp wake 2 60 ARGS 1500 ENV UMP_TRANSPORTS=tcp ${wake_env})
ump_mp_test(wake.udp wake 2 60 ARGS 1500 ENV UMP_TRANSPORTS=udp ${wake_env})
# Ranks that disagree about UMP_SHM_POLL_MAX (rank 0 wants the bitmap):
# every rank must use the bitmap, or rank 0 would wait for flags others
# never set.
add_test(NAME mp.wake.shm.mixed
         COMMAND $<TARGET_FILE:umprun> -n 4 --timeout 60 --tag-output sh -c
                 "[ \"$UMP_JOB_RANK\" = 0 ] && export UMP_SHM_POLL_MAX=0; exec \"$0\" 1000"
                 $<TARGET_FILE:mp_wake>)
set_tests_properties(mp.wake.shm.mixed PROPERTIES TIMEOUT 75 LABELS mp
                     ENVIRONMENT "UMP_TRANSPORTS=shm;UMP_WAIT=block;UMP_WAIT_SPIN_US=1")
# Unexpected messages whose data finds no memory: their receives (and the
# synchronous sends) fail, no other message takes their place.
foreach(t shm tcp udp)
  ump_mp_test(oom.${t} oom 2 60 ENV UMP_TRANSPORTS=${t} UMP_CORE_FAIL_UNEXP=4)
endforeach()
ump_mp_test(oom.none oom 2 60 ENV UMP_TRANSPORTS=shm)
# Every other operation queued for a full transport finds the free list
# empty and comes from the static reserve: nothing may be lost or fail.
ump_mp_test(storm.shm.tight.oom storm 4 60 ARGS 300
            ENV UMP_TRANSPORTS=shm UMP_SHM_RING_SIZE=16k UMP_CREDITS=1 UMP_SHM_EAGER_LIMIT=1k
                UMP_SHM_SEG_SIZE=2k UMP_CORE_FAIL_OPS=2)
ump_mp_test(storm.tcp.tight.oom storm 4 60 ARGS 300
            ENV UMP_TRANSPORTS=tcp UMP_TCP_SNDBUF=4k UMP_TCP_RCVBUF=4k UMP_TCP_QUEUE_MAX=8k
                UMP_CREDITS=1 UMP_TCP_EAGER_LIMIT=2k UMP_TCP_SEG_SIZE=8k UMP_CORE_FAIL_OPS=2)

# Tight resources: the smallest shm rings, minimal credits, tiny socket
# buffers and send queues, so back-pressure paths run all the time.
ump_mp_test(storm.shm.tight storm 4 60 ARGS 300
            ENV UMP_TRANSPORTS=shm UMP_SHM_RING_SIZE=16k UMP_CREDITS=1 UMP_SHM_EAGER_LIMIT=1k
                UMP_SHM_SEG_SIZE=2k)
ump_mp_test(storm.tcp.tight storm 4 60 ARGS 300
            ENV UMP_TRANSPORTS=tcp UMP_TCP_SNDBUF=4k UMP_TCP_RCVBUF=4k UMP_TCP_QUEUE_MAX=8k
                UMP_CREDITS=1 UMP_TCP_EAGER_LIMIT=2k UMP_TCP_SEG_SIZE=8k)
ump_mp_test(sizes.shm.tight sizes 2 90 ARGS --max 4m
            ENV UMP_TRANSPORTS=shm UMP_SHM_RING_SIZE=16k UMP_CREDITS=1)
ump_mp_test(sizes.tcp.tight sizes 2 90 ARGS --max 4m
            ENV UMP_TRANSPORTS=tcp UMP_TCP_SNDBUF=4k UMP_TCP_RCVBUF=4k UMP_TCP_QUEUE_MAX=8k
                UMP_CREDITS=1)
# tcp rendezvous: every one read with a get (the peer sends from its
# buffer, the reply read into ours) from 1 KiB on, or every one streamed.
ump_mp_test(sizes.tcp.get sizes 2 90 ARGS --max 4m
            ENV UMP_TRANSPORTS=tcp UMP_TCP_EAGER_LIMIT=1k UMP_TCP_GET_MIN=1k)
ump_mp_test(sizes.tcp.stream sizes 2 90 ARGS --max 4m
            ENV UMP_TRANSPORTS=tcp UMP_RNDV_SCHEME=stream)

# The libfabric transport over two providers: tcp;ofi_rxm and shm. A ctest
# environment list cannot hold the semicolon of "tcp;ofi_rxm", so that one is
# named "ofi_rxm" with libfabric's own filter letting only tcp and rxm load.
# Every contiguous rendezvous is an RDMA read by default (`.write`, `.read`
# force a scheme, UMP_RNDV_SCHEME); `.stream` turns RDMA off
# (pipelined DATA), `.small` shrinks the thresholds so every protocol path
# runs on small data.
if(UMP_HAVE_OFI)
  foreach(prov rxm shm)
    if(prov STREQUAL rxm)
      set(env UMP_TRANSPORTS=ofi UMP_OFI_PROVIDER=ofi_rxm FI_PROVIDER=tcp,ofi_rxm)
    else()
      set(env UMP_TRANSPORTS=ofi UMP_OFI_PROVIDER=shm)
    endif()
    ump_mp_test(sizes.ofi.${prov} sizes 2 120 ENV ${env})
    ump_mp_test(rget.ofi.${prov} rget 2 60 ENV ${env})
    ump_mp_test(sizes.ofi.${prov}.stream sizes 2 120 ARGS --max 4m ENV ${env} UMP_OFI_RMA=off)
    # Each rendezvous scheme forced (tests/dt/dt_rndv.c adds derived types).
    ump_mp_test(sizes.ofi.${prov}.read sizes 2 120 ARGS --max 4m ENV ${env} UMP_RNDV_SCHEME=read)
    ump_mp_test(sizes.ofi.${prov}.write sizes 2 120 ARGS --max 4m ENV ${env} UMP_RNDV_SCHEME=write)
    ump_mp_test(sizes.ofi.${prov}.small sizes 2 120 ARGS --max 1m
                ENV ${env} UMP_OFI_EAGER_LIMIT=256 UMP_OFI_SEG_SIZE=1k UMP_OFI_GET_MIN=4096)
    # Eager payloads from the application's buffer itself (am_send_zc) from
    # the first byte on, and never (every one copied into the pool); the
    # first must log at close that it sent some that way.
    ump_mp_test(sizes.ofi.${prov}.copy sizes 2 120 ARGS --max 1m ENV ${env} UMP_OFI_ZC_MIN=0)
    ump_mp_log_test(sizes.ofi.${prov}.zc sizes " [1-9][0-9]* from the caller.s buffer"
                    ENV ${env} UMP_OFI_ZC_MIN=1 UMP_LOG=debug)
    # RDMA in operations of at most 4 KiB, 16 KiB of them under way to a
    # peer (applied to any provider when set): every rendezvous runs as
    # many operations, most of them refused by the window at first and
    # issued as earlier ones complete; the log at close must count such
    # refusals. Written as well as read.
    ump_mp_log_test(sizes.ofi.${prov}.chunk sizes " [1-9][0-9]* waited for the window"
                    ENV ${env} UMP_OFI_RMA_CHUNK=4k UMP_OFI_RMA_WINDOW=16k UMP_LOG=debug)
    ump_mp_test(sizes.ofi.${prov}.chunk.write sizes 2 120 ARGS --max 1m
                ENV ${env} UMP_OFI_RMA_CHUNK=4k UMP_OFI_RMA_WINDOW=16k UMP_RNDV_SCHEME=write)
    if(prov STREQUAL rxm)
      # rxm's own eager limit lowered by the user (ump's eager limit follows,
      # its 64k segments go by rxm's rendezvous), and rxm without direct
      # placement (its buffer is the limit again).
      ump_mp_test(sizes.ofi.rxm.rxmeager sizes 2 120 ARGS --max 1m
                  ENV ${env} FI_OFI_RXM_EAGER_LIMIT=20000)
      ump_mp_test(sizes.ofi.rxm.nodyn sizes 2 120 ARGS --max 1m
                  ENV ${env} FI_OFI_RXM_ENABLE_DYN_RBUF=0)
    endif()
    ump_mp_test(wildcards.ofi.${prov} wildcards 4 90 ENV ${env})
    ump_mp_test(order.ofi.${prov} order 2 90 ENV ${env})
    ump_mp_test(many.ofi.${prov} many 2 90 ENV ${env})
    ump_mp_test(self.ofi.${prov} self 2 90 ENV ${env})
    ump_mp_test(truncate.ofi.${prov} truncate 2 90 ENV ${env})
    ump_mp_test(ssend.ofi.${prov} ssend 2 90 ENV ${env})
    ump_mp_test(probe.ofi.${prov} probe 2 90 ENV ${env})
    ump_mp_test(cancel.ofi.${prov} cancel 2 90 ENV ${env})
    # The receiver's resident size also holds the provider's buffer pools,
    # which rxm grows and touches as traffic comes (40-80 MiB here, as the
    # kernel backs them with huge pages or not): 290 MiB sent, 96 allowed.
    ump_mp_test(flood.ofi.${prov} flood 2 120 ARGS 300000 96 ENV ${env})
    ump_mp_test(credits.ofi.${prov} credits 2 90 ENV ${env})
    ump_mp_test(init.ofi.${prov} init 3 60 ARGS 3 ENV ${env})
    ump_mp_test(finalize.ofi.${prov} finalize 2 60 ENV ${env})
    ump_mp_test(storm.ofi.${prov} storm 4 90 ENV ${env})
    ump_mp_test(threads.ofi.${prov} threads 2 90 ENV ${env})
    ump_mp_test(alltoall.ofi.${prov} alltoall 4 90 ENV ${env})
    # Ranks started with different eager and segment sizes (two with 4 KiB,
    # two with 60 KiB): every rank sends no AM larger than the smallest
    # receive buffer any rank posts, so nothing is truncated or held.
    add_test(NAME mp.storm.ofi.${prov}.mixed
             COMMAND $<TARGET_FILE:umprun> -n 4 --timeout 90 --tag-output
                     sh ${UMP_MP_DIR}/rank_env.sh 0,2 UMP_OFI_EAGER_LIMIT=4k UMP_OFI_SEG_SIZE=4k
                     -- sh ${UMP_MP_DIR}/rank_env.sh 1,3 UMP_OFI_EAGER_LIMIT=60k
                     UMP_OFI_SEG_SIZE=60k -- $<TARGET_FILE:mp_storm>)
    set_tests_properties(mp.storm.ofi.${prov}.mixed PROPERTIES TIMEOUT 105 LABELS mp
                         ENVIRONMENT "${env}")
  endforeach()
  # Over rxm, a segment size set larger than rxm's eager limit on one rank
  # only gives that rank another rxm eager limit, and rxm would refuse its
  # connections for ever: ump_init must fail on both ranks, saying why.
  add_test(NAME mp.init.ofi.rxm.mismatch
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/mpi/fatal.sh
                   "rank 1's rxm eager limit is [0-9]+ bytes, this rank's [0-9]+"
                   $<TARGET_FILE:umprun> -n 2 --timeout 50 sh ${UMP_MP_DIR}/rank_env.sh 1
                   UMP_OFI_SEG_SIZE=200k -- $<TARGET_FILE:mp_init> 2)
  set_tests_properties(mp.init.ofi.rxm.mismatch PROPERTIES TIMEOUT 75 LABELS mp
                       ENVIRONMENT "UMP_TRANSPORTS=ofi;UMP_OFI_PROVIDER=ofi_rxm;FI_PROVIDER=tcp,ofi_rxm")
  # The same programs over libfabric's sockets provider and over udp;ofi_rxd
  # (datagrams made reliable inside libfabric; named ofi_rxd with libfabric's
  # filter, as rxm above), rendezvous by RDMA read. Over udp;ofi_rxd, storm
  # (four ranks sending to each other) streams its rendezvous: with RDMA
  # reads or writes among them, libfabric 1.17's rxd left operations
  # outstanding while every rank polled, and once delivered a message ahead
  # of an earlier one; many (10,000 requests) is left out: it stalls the
  # same way in most runs, with RDMA off too (docs/ofi.md).
  foreach(prov sockets rxd)
    set(progs sizes:2 wildcards:4 order:2 many:2 self:2 truncate:2 ssend:2 probe:2 cancel:2
              flood:2 credits:2 finalize:2 storm:4 threads:2 alltoall:4)
    if(prov STREQUAL rxd)
      set(env UMP_TRANSPORTS=ofi UMP_OFI_PROVIDER=ofi_rxd FI_PROVIDER=udp,ofi_rxd)
      list(REMOVE_ITEM progs many:2 storm:4)
      ump_mp_test(storm.ofi.rxd.stream storm 4 120 ENV ${env} UMP_OFI_RMA=off)
    else()
      set(env UMP_TRANSPORTS=ofi UMP_OFI_PROVIDER=sockets)
    endif()
    foreach(p ${progs})
      string(REPLACE ":" ";" pn ${p})
      list(GET pn 0 prog)
      list(GET pn 1 np)
      ump_mp_test(${prog}.ofi.${prov} ${prog} ${np} 120 ENV ${env})
    endforeach()
    # The sockets provider's own locking and progress thread make the
    # threads program take 6-14 s here, over its wake-up bound: the data
    # are checked, the bound is left to the other transports.
    if(prov STREQUAL sockets)
      set_property(TEST mp.threads.ofi.sockets APPEND PROPERTY ENVIRONMENT UMPTEST_NO_TIMING=1)
    endif()
    ump_mp_test(init.ofi.${prov} init 3 60 ARGS 3 ENV ${env})
  endforeach()
  # ofiud: the reliability engine over libfabric datagram endpoints (the
  # udp provider here). Its datagrams are 1472 bytes, so a message of a
  # few MiB is thousands of them: sizes stop at 4 MiB. `.mtu` shrinks the
  # datagrams below the provider's and sends from one endpoint, `.small`
  # shrinks the eager limit and segments so every protocol path runs.
  set(ud_env UMP_TRANSPORTS=ofiud UMP_OFIUD_PROVIDER=udp)
  ump_mp_test(sizes.ofiud sizes 2 240 ARGS --max 4m ENV ${ud_env} UMP_OFIUD_MTU=1472)
  ump_mp_test(sizes.ofiud.mtu sizes 2 240 ARGS --max 1m
              ENV ${ud_env} UMP_OFIUD_MTU=1000 UMP_OFIUD_STRIPES=1)
  ump_mp_test(sizes.ofiud.small sizes 2 240 ARGS --max 1m
              ENV ${ud_env} UMP_OFIUD_EAGER_LIMIT=2k UMP_OFIUD_SEG_SIZE=4k)
  # Every datagram from a registered send buffer, none injected, and a
  # pool small enough to run out.
  ump_mp_test(sizes.ofiud.noinject sizes 2 240 ARGS --max 1m
              ENV ${ud_env} UMP_OFIUD_INJECT=off UMP_OFIUD_TX=8 UMP_OFIUD_MTU=1472)
  ump_mp_test(storm.ofiud.noinject storm 4 120 ENV ${ud_env} UMP_OFIUD_INJECT=off UMP_OFIUD_TX=4)
  ump_mp_test(wildcards.ofiud wildcards 4 120 ENV ${ud_env})
  ump_mp_test(order.ofiud order 2 120 ENV ${ud_env})
  ump_mp_test(many.ofiud many 2 120 ENV ${ud_env})
  ump_mp_test(self.ofiud self 2 90 ENV ${ud_env})
  ump_mp_test(truncate.ofiud truncate 2 90 ENV ${ud_env})
  ump_mp_test(ssend.ofiud ssend 2 90 ENV ${ud_env})
  ump_mp_test(probe.ofiud probe 2 90 ENV ${ud_env})
  ump_mp_test(cancel.ofiud cancel 2 90 ENV ${ud_env})
  ump_mp_test(flood.ofiud flood 2 180 ENV ${ud_env})
  ump_mp_test(credits.ofiud credits 2 120 ENV ${ud_env})
  ump_mp_test(init.ofiud init 3 60 ARGS 3 ENV ${ud_env})
  ump_mp_test(finalize.ofiud finalize 2 60 ENV ${ud_env})
  ump_mp_test(storm.ofiud storm 4 120 ENV ${ud_env})
  ump_mp_test(threads.ofiud threads 2 120 ENV ${ud_env})
  ump_mp_test(alltoall.ofiud alltoall 4 120 ENV ${ud_env} UMP_WAIT=auto)
  # Sleeping waits: the completion queue's wait fd and rel's timer wake them.
  ump_mp_test(wake.ofiud wake 2 90 ARGS 1500 ENV ${ud_env} UMP_WAIT=block UMP_WAIT_SPIN_US=1)
  ump_mp_test(threads.ofiud.block threads 2 120 ENV ${ud_env} UMP_WAIT=block)
  # Without the wait fd (as on a provider that has none): waits poll.
  ump_mp_test(wake.ofiud.poll wake 2 90 ARGS 500
              ENV ${ud_env} UMP_OFIUD_WAIT_FD=off UMP_WAIT=block UMP_WAIT_SPIN_US=1)
  ump_mp_test(storm.ofiud.poll storm 4 120 ENV ${ud_env} UMP_OFIUD_WAIT_FD=off UMP_WAIT=block)
  # Under the rel fault injection, as udp: every byte and the order survive.
  set(ud_faults ${ud_env} UMP_REL_DROP=0.05 UMP_REL_DUP=0.02 UMP_REL_REORDER=0.05
                UMP_REL_CORRUPT=0.01)
  ump_mp_test(sizes.ofiud.faults sizes 2 240 ARGS --max 1m ENV ${ud_faults} UMP_OFIUD_MTU=1472)
  ump_mp_test(order.ofiud.faults order 2 120 ENV ${ud_faults})
  ump_mp_test(wildcards.ofiud.faults wildcards 4 120 ENV ${ud_faults})
  ump_mp_test(ssend.ofiud.faults ssend 2 120 ENV ${ud_faults})
  ump_mp_test(storm.ofiud.faults storm 4 120 ENV ${ud_faults} UMP_WAIT=block)
  ump_mp_test(flood.ofiud.faults flood 2 180 ARGS 20000 ENV ${ud_faults})
  ump_mp_test(credits.ofiud.faults credits 2 120 ENV ${ud_faults})
  ump_mp_test(finalize.ofiud.faults finalize 2 60 ENV ${ud_faults})
  ump_mp_test(threads.ofiud.faults.block threads 2 120 ENV ${ud_faults} UMP_WAIT=block)
  ump_mp_test(alltoall.ofiud.faults alltoall 4 120 ENV ${ud_faults} UMP_WAIT=auto)
  # The loopback interface's domain, chosen by name; a domain that does not
  # exist is refused by name.
  ump_mp_test(order.ofiud.lo order 2 120 ENV ${ud_env} UMP_OFIUD_DOMAIN=lo)
  add_test(NAME mp.ofiud.nodomain COMMAND $<TARGET_FILE:umprun> -n 1 --timeout 30
                                          $<TARGET_FILE:mp_init> 1)
  set_tests_properties(mp.ofiud.nodomain PROPERTIES TIMEOUT 45 LABELS mp
    ENVIRONMENT "UMP_TRANSPORTS=ofiud;UMP_OFIUD_DOMAIN=nosuch"
    PASS_REGULAR_EXPRESSION "offers domain \"nosuch\" \\(UMP_OFIUD_DOMAIN\\)")
  # A datagram provider that does not exist: ump_init fails and says which.
  add_test(NAME mp.ofiud.noprov COMMAND $<TARGET_FILE:umprun> -n 1 --timeout 30
                                        $<TARGET_FILE:mp_init> 1)
  set_tests_properties(mp.ofiud.noprov PROPERTIES TIMEOUT 45 LABELS mp
    ENVIRONMENT "UMP_TRANSPORTS=ofiud;UMP_OFIUD_PROVIDER=nosuch"
    PASS_REGULAR_EXPRESSION "provider \"nosuch\" \\(UMP_OFIUD_PROVIDER\\) is not available")
  # A provider that does not exist: ump_init fails and says which.
  add_test(NAME mp.ofi.noprov COMMAND $<TARGET_FILE:umprun> -n 1 --timeout 30
                                      $<TARGET_FILE:mp_init> 1)
  set_tests_properties(mp.ofi.noprov PROPERTIES TIMEOUT 45 LABELS mp
    ENVIRONMENT "UMP_TRANSPORTS=ofi;UMP_OFI_PROVIDER=nosuch"
    PASS_REGULAR_EXPRESSION "provider \"nosuch\" \\(UMP_OFI_PROVIDER\\) is not available")
else()
  add_test(NAME mp.ofi.absent COMMAND sh -c
           "echo 'libfabric not found at configure time (install libfabric-dev): ofi tests skipped'; exit 77")
  set_tests_properties(mp.ofi.absent PROPERTIES LABELS mp SKIP_RETURN_CODE 77)
endif()

# Without the launcher: a one-rank job.
add_test(NAME mp.init.singleton COMMAND $<TARGET_FILE:mp_init> 1)
set_tests_properties(mp.init.singleton PROPERTIES TIMEOUT 30 LABELS mp)
# A singleton reads its own memory through the self transport.
add_test(NAME mp.rget.singleton COMMAND $<TARGET_FILE:mp_rget> --must)
set_tests_properties(mp.rget.singleton PROPERTIES TIMEOUT 30 LABELS mp)

# Two "hosts" (network namespaces), ranks 0,1 on one and 2,3 on the other:
# shm inside a host, tcp between them.
ump_mp_netns(sizes 120 --max 4m)
ump_mp_netns(wildcards 60)
ump_mp_netns(order 60)
ump_mp_netns(storm 60)
if(UMP_MP_HAVE_EXT)
  ump_mp_netns(ext 30 0,0,1,1)
endif()

# udp under injected faults together (5% dropped, 2% duplicated, 5%
# reordered, 1% corrupted): every byte and MPI's order must survive. Every
# program runs so except ext, whose hook check times a 50 ms blocking receive
# and cannot tell a retransmission delay from a missing progress call.
set(UMP_MP_UDP_FAULTS UMP_TRANSPORTS=udp UMP_REL_DROP=0.05 UMP_REL_DUP=0.02 UMP_REL_REORDER=0.05
                      UMP_REL_CORRUPT=0.01)
ump_mp_test(sizes.udp.faults sizes 2 120 ARGS --max 4m ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(order.udp.faults order 2 90 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(wildcards.udp.faults wildcards 4 90 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(ssend.udp.faults ssend 2 90 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(alltoall.udp.faults alltoall 8 90 ENV ${UMP_MP_UDP_FAULTS} UMP_WAIT=auto)
ump_mp_test(storm.udp.faults storm 4 90 ENV ${UMP_MP_UDP_FAULTS} UMP_WAIT=block)
ump_mp_test(flood.udp.faults flood 2 120 ARGS 20000 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(credits.udp.faults credits 2 90 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(finalize.udp.faults finalize 2 60 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(many.udp.faults many 2 60 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(self.udp.faults self 2 60 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(truncate.udp.faults truncate 2 60 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(probe.udp.faults probe 2 60 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(cancel.udp.faults cancel 2 60 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(init.udp.faults init 3 30 ARGS 3 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(threads.udp.faults threads 2 60 ENV ${UMP_MP_UDP_FAULTS})
ump_mp_test(threads.udp.faults.block threads 2 60 ENV ${UMP_MP_UDP_FAULTS} UMP_WAIT=block)
# Small datagrams (an Ethernet MTU) and one send socket: many fragments.
ump_mp_test(sizes.udp.mtu1500 sizes 2 120 ARGS --max 4m
            ENV UMP_TRANSPORTS=udp UMP_UDP_MTU=1472 UMP_UDP_STRIPES=1)
