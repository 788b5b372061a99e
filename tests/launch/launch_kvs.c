/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * launch_kvs [node ids, e.g. 0,0,1,1]: every rank puts a value, fences,
 * reads every other rank's value and checks the node ids (the given list,
 * or all 0) and the local rank/size facts; a second fence round checks
 * that later epochs work too. Prints "rank R ok" and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"
#include "util/util.h"

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "launch_kvs: FAIL %s:%d: ", __FILE__, __LINE__);                       \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    ump_rt_t *rt;
    int rc = ump_rt_init(&rt);
    CHECK(rc == UMP_OK, "ump_rt_init: %s", ump_strerror(rc));
    const ump_rt_info_t *in = ump_rt_info(rt);
    int me = in->rank, n = in->size;

    int *want = calloc((size_t)n, sizeof(int));
    if (argc > 1) {
        char *s = argv[1];
        for (int r = 0; r < n; r++) {
            CHECK(*s, "node list too short for %d ranks", n);
            want[r] = (int)strtol(s, &s, 10);
            if (*s == ',') s++;
        }
    }
    char key[32], val[UMP_RT_VAL_MAX];
    snprintf(val, sizeof(val), "value-of-%d-%s", me, in->job_id);
    CHECK(ump_rt_put(rt, "test.v", val, strlen(val) + 1) == UMP_OK, "put");
    /* A big binary value, to cross TCP segment sizes. */
    for (int i = 0; i < UMP_RT_VAL_MAX; i++)
        val[i] = (char)(i * 7 + me);
    CHECK(ump_rt_put(rt, "test.big", val, sizeof(val)) == UMP_OK, "put big");
    CHECK(ump_rt_put(rt, "", val, 1) == UMP_ERR_INVALID, "empty key accepted");
    CHECK(ump_rt_put(rt, "x", val, UMP_RT_VAL_MAX + 1) == UMP_ERR_INVALID, "huge value accepted");
    rc = ump_rt_fence(rt);
    CHECK(rc == UMP_OK, "fence: %s", ump_strerror(rc));

    char addr[64];
    CHECK(ump_rt_local_addr(rt, addr, sizeof(addr)) == UMP_OK, "local_addr");
    int same_node = 0, lower_same_node = 0;
    for (int r = 0; r < n; r++) {
        char got[UMP_RT_VAL_MAX], exp[64];
        size_t len = sizeof(got);
        rc = ump_rt_get(rt, r, "test.v", got, &len);
        CHECK(rc == UMP_OK, "get from rank %d: %s", r, ump_strerror(rc));
        snprintf(exp, sizeof(exp), "value-of-%d-%s", r, in->job_id);
        CHECK(len == strlen(exp) + 1 && !strcmp(got, exp), "rank %d value '%s'", r, got);
        len = sizeof(got);
        CHECK(ump_rt_get(rt, r, "test.big", got, &len) == UMP_OK && len == UMP_RT_VAL_MAX,
              "big from %d", r);
        for (int i = 0; i < UMP_RT_VAL_MAX; i++)
            CHECK(got[i] == (char)(i * 7 + r), "big from %d byte %d", r, i);
        len = 3;
        CHECK(ump_rt_get(rt, r, "test.v", got, &len) == UMP_ERR_NO_RESOURCE &&
                  len == strlen(exp) + 1,
              "small buffer");
        len = sizeof(got);
        CHECK(ump_rt_get(rt, r, "no.such", got, &len) == UMP_ERR_INVALID, "absent key");
        int node = ump_rt_node_of(rt, r);
        CHECK(node == want[r], "node_of(%d) = %d, want %d", r, node, want[r]);
        same_node += node == in->node_id;
        lower_same_node += node == in->node_id && r < me;
    }
    CHECK(in->node_id == want[me], "my node %d", in->node_id);
    CHECK(in->local_size == same_node, "local_size %d, %d ranks on my node", in->local_size,
          same_node);
    CHECK(in->local_rank == lower_same_node, "local_rank %d", in->local_rank);

    /* Second epoch: only the new keys travel; old ones stay readable. */
    snprintf(key, sizeof(key), "round2.%d", me);
    CHECK(ump_rt_put(rt, key, &me, sizeof(me)) == UMP_OK, "put 2");
    CHECK(ump_rt_fence(rt) == UMP_OK, "fence 2");
    for (int r = 0; r < n; r++) {
        int v = -1;
        size_t len = sizeof(v);
        snprintf(key, sizeof(key), "round2.%d", r);
        CHECK(ump_rt_get(rt, r, key, &v, &len) == UMP_OK && v == r, "round 2 from %d", r);
    }
    /* A fence with no puts at all. */
    CHECK(ump_rt_fence(rt) == UMP_OK, "fence 3");
    printf("rank %d ok node %d addr %s backend %s\n", me, in->node_id, addr, in->backend);
    free(want);
    ump_rt_fini(rt);
    return 0;
}
