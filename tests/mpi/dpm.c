/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpm.c - dynamic processes without intercommunicators (MPI 3.1 §10):
 * ports (Open_port, Close_port), the name service (Publish_name,
 * Lookup_name, Unpublish_name: every rank sees every rank's names under
 * umprun), Comm_get_parent of a process nobody spawned, MPI_UNIVERSE_SIZE
 * and MPI_APPNUM, and Comm_spawn / spawn_multiple of programs that do not
 * exist failing cleanly with MPI_ERR_SPAWN on every rank.
 */
#include "mt.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "dpm");
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CALL(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rank = mt_rank, size = mt_size, flag = 0, *val = NULL;

    MPI_Comm parent = (MPI_Comm)1;
    CALL(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "a process nobody spawned has a parent");
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag));
    CHECK(!flag || *val >= size, "MPI_UNIVERSE_SIZE %d < world size %d", *val, size);
    CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag));
    CHECK(!flag || *val == 0, "MPI_APPNUM %d in a one-program job", *val);

    /* Ports and names: each rank publishes its own port. */
    char port[MPI_MAX_PORT_NAME], got[MPI_MAX_PORT_NAME], service[64], next[64];
    CALL(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK(strlen(port) > 0 && strlen(port) < MPI_MAX_PORT_NAME, "port name '%s'", port);
    char *all = mt_xmalloc((size_t)size * MPI_MAX_PORT_NAME);
    CALL(MPI_Allgather(port, MPI_MAX_PORT_NAME, MPI_CHAR, all, MPI_MAX_PORT_NAME, MPI_CHAR,
                       MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        CHECK(r == rank || strcmp(all + (size_t)r * MPI_MAX_PORT_NAME, port),
              "ranks %d and %d opened the same port '%s'", r, rank, port);
    snprintf(service, sizeof(service), "dpm-test-%d", rank);
    snprintf(next, sizeof(next), "dpm-test-%d", (rank + 1) % size);
    CALL(MPI_Publish_name(service, MPI_INFO_NULL, port));
    EXPECT_CLASS(MPI_Publish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE);
    CALL(MPI_Lookup_name(service, MPI_INFO_NULL, got));
    CHECK(!strcmp(got, port), "looked up '%s', published '%s'", got, port);
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    /* Under umprun the names are the job's; a singleton sees its own. */
    CALL(MPI_Lookup_name(next, MPI_INFO_NULL, got));
    const char *want = all + (size_t)((rank + 1) % size) * MPI_MAX_PORT_NAME;
    CHECK(!strcmp(got, want), "service %s: '%s', want '%s'", next, got, want);
    EXPECT_CLASS(MPI_Lookup_name("dpm-test-none", MPI_INFO_NULL, got), MPI_ERR_NAME);
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    EXPECT_CLASS(MPI_Unpublish_name(service, MPI_INFO_NULL, "ump-port:1.2.3.4:5:0000000000000000"),
                 MPI_ERR_SERVICE);
    CALL(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
    EXPECT_CLASS(MPI_Unpublish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE);
    CALL(MPI_Barrier(MPI_COMM_WORLD));
    EXPECT_CLASS(MPI_Lookup_name(next, MPI_INFO_NULL, got), MPI_ERR_NAME);
    CALL(MPI_Close_port(port));
    EXPECT_CLASS(MPI_Close_port(port), MPI_ERR_PORT);
    EXPECT_CLASS(MPI_Close_port("not a port"), MPI_ERR_PORT);
    EXPECT_CLASS(MPI_Publish_name(NULL, MPI_INFO_NULL, port), MPI_ERR_ARG);
    free(all);

    /* Spawning what cannot start: refused on every rank, with every error
     * code set (tests/mpi/spawn.c spawns for real). */
    MPI_Comm inter = MPI_COMM_WORLD;
    int codes[3] = {0, 0, 0};
    EXPECT_CLASS(MPI_Comm_spawn("./dpm-no-such-program", MPI_ARGV_NULL, 3, MPI_INFO_NULL, 0,
                                MPI_COMM_WORLD, &inter, codes),
                 MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "a failed spawn left an intercommunicator");
    for (int i = 0; i < 3; i++)
        CHECK(codes[i] == MPI_ERR_SPAWN, "errcode %d is %d", i, codes[i]);
    EXPECT_CLASS(MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, size, MPI_COMM_WORLD,
                                &inter, MPI_ERRCODES_IGNORE),
                 MPI_ERR_ROOT);
    char *cmds[2] = {"./dpm-no-such-program", "./dpm-no-such-program-either"};
    int np[2] = {1, 2};
    EXPECT_CLASS(MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, np, NULL, 0, MPI_COMM_SELF,
                                         &inter, MPI_ERRCODES_IGNORE),
                 MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "a failed spawn_multiple left an intercommunicator");
    return mt_done();
}
