/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * deadpeer: a peer that stops answering is declared dead within the
 * configured budget, and the operations to it fail with
 * UMP_ERR_PEER_DEAD instead of hanging.
 *
 * Rank 1 tells rank 0 its pid, then stops itself (SIGSTOP): the process is
 * alive but silent, as a hung or partitioned peer would be. Rank 0 then
 * ssends to it: the send must fail with UMP_ERR_PEER_DEAD after about
 * BUDGET seconds (UMP_REL_TIMEOUT) and before BUDGET + SLACK; a second
 * send must fail at once. Then rank 0 continues rank 1 (SIGCONT) and both
 * finalize, so the job ends cleanly.
 *
 * usage: deadpeer BUDGET SLACK       (seconds; run with UMP_REL_TIMEOUT=BUDGET)
 */
#include <signal.h>

#include "../mp/mp_common.h"

int main(int argc, char **argv)
{
    mp_init("deadpeer", &argc, &argv);
    int me = ump_rank();
    MP_CHECK(ump_size() == 2, "needs 2 ranks");
    double budget = argc > 1 ? atof(argv[1]) : 2.0;
    double slack = argc > 2 ? atof(argv[2]) : 3.0;
    int pid = (int)getpid();

    if (me == 1) {
        MP_CALL(ump_send(&pid, sizeof(pid), UMP_BYTE, 0, 1, MP_CTX_CTRL));
        int go;
        MP_CALL(ump_recv(&go, sizeof(go), UMP_BYTE, 0, 2, MP_CTX_CTRL, NULL));
        /* Our ack of "go" may or may not leave before we stop; either way
         * rank 0 hears nothing more from us. */
        raise(SIGSTOP);
        printf("deadpeer: rank 1 continued\n");
        mp_finalize();
        return 0;
    }

    int peer_pid;
    MP_CALL(ump_recv(&peer_pid, sizeof(peer_pid), UMP_BYTE, 1, 1, MP_CTX_CTRL, NULL));
    MP_CALL(ump_send(&pid, sizeof(pid), UMP_BYTE, 1, 2, MP_CTX_CTRL));
    mp_sleep_ms(300); /* rank 1 stops */
    char msg[1000];
    mp_fill(msg, sizeof(msg), 0, 1, 3, 0);
    double t0 = mp_now();
    int rc = ump_ssend(msg, sizeof(msg), UMP_BYTE, 1, 3, 0);
    double dt = mp_now() - t0;
    printf("deadpeer: ssend to the stopped rank returned %s after %.2f s (budget %.1f s)\n",
           ump_status_name(rc), dt, budget);
    int rc2 = ump_send(msg, sizeof(msg), UMP_BYTE, 1, 4, 0);
    kill(peer_pid, SIGCONT);
    MP_CHECK(rc == UMP_ERR_PEER_DEAD, "ssend returned %s", ump_status_name(rc));
    MP_CHECK(dt <= budget + slack, "took %.2f s, budget %.1f s", dt, budget);
    MP_CHECK(dt >= budget - 0.5, "declared dead after %.2f s, before the budget %.1f s", dt,
             budget);
    MP_CHECK(rc2 == UMP_ERR_PEER_DEAD, "send after the failure returned %s", ump_status_name(rc2));
    mp_finalize();
    return 0;
}
