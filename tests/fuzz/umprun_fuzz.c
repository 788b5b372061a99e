/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * umprun's main.c for the harnesses that drive umprun's parsers: its
 * main() is renamed so the harness's own entry point rules, without any
 * change to the launcher itself; umprun_parse_args() is opts_parse().
 */
#define main umprun_main
#include "../../tools/umprun/main.c"
#undef main

#include "umprun_fuzz.h"

int umprun_parse_args(int argc, char **argv)
{
    return opts_parse(argc, argv);
}

void umprun_reset(void)
{
    for (int i = 0; i < job.nconns; i++)
        job.conns[i]->dead = true;
    kvs_reap_conns();
    free(job.conns);
    group_free_all();
    for (int i = 0; i < job.nhosts; i++)
        free(job.hosts[i].name);
    free(job.hosts);
    free(job.ranks);
    free(job.hostspecs);
    free(job.xvars);
    opts_free();
    memset(&job, 0, sizeof(job));
    job.rsh = "ssh";
    job.bind = BIND_AUTO;
    job.lfd = job.in_fd = job.in_pipe = -1;
    job.out_jobdir = job.out_copy = true;
}
