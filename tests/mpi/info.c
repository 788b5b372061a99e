/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * info.c - info objects (MPI 3.1 §9): create, set (and overwrite), get with
 * short value buffers, get_valuelen, get_nkeys, get_nthkey, dup (an
 * independent copy), delete (MPI_ERR_INFO_NOKEY for a missing key), free.
 */
#include "mt.h"

static int has_key(MPI_Info info, const char *key)
{
    int n = -1;
    char k[MPI_MAX_INFO_KEY + 1];
    CALL(MPI_Info_get_nkeys(info, &n));
    for (int i = 0; i < n; i++) {
        CALL(MPI_Info_get_nthkey(info, i, k));
        if (!strcmp(k, key)) return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "info");
    MPI_Info info, dup;
    int n = -1, flag = -1, len = -1;
    char v[MPI_MAX_INFO_VAL + 1];

    /* MPI_INFO_ENV is a valid, readable info object */
    CALL(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
    CHECK(n >= 0, "MPI_INFO_ENV has %d keys", n);
    for (int i = 0; i < n; i++) {
        char k[MPI_MAX_INFO_KEY + 1];
        CALL(MPI_Info_get_nthkey(MPI_INFO_ENV, i, k));
        CALL(MPI_Info_get_valuelen(MPI_INFO_ENV, k, &len, &flag));
        CHECK(flag && len >= 0, "MPI_INFO_ENV key \"%s\" has no value", k);
    }

    CALL(MPI_Info_create(&info));
    CHECK(info != MPI_INFO_NULL, "MPI_Info_create gave MPI_INFO_NULL");
    CALL(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 0, "a new info has %d keys", n);
    CALL(MPI_Info_get(info, "absent", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag == 0, "MPI_Info_get of a missing key gave flag %d", flag);
    CALL(MPI_Info_get_valuelen(info, "absent", &len, &flag));
    CHECK(flag == 0, "MPI_Info_get_valuelen of a missing key gave flag %d", flag);

    CALL(MPI_Info_set(info, "alpha", "one"));
    CALL(MPI_Info_set(info, "beta", "a somewhat longer value"));
    CALL(MPI_Info_set(info, "gamma", "3"));
    CALL(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 3, "after 3 sets: %d keys", n);
    CHECK(has_key(info, "alpha") && has_key(info, "beta") && has_key(info, "gamma"),
          "MPI_Info_get_nthkey does not list all keys");

    memset(v, 'x', sizeof(v));
    CALL(MPI_Info_get(info, "beta", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && !strcmp(v, "a somewhat longer value"), "get beta: flag %d \"%s\"", flag, v);
    CALL(MPI_Info_get_valuelen(info, "beta", &len, &flag));
    CHECK(flag && len == 23, "valuelen of beta: flag %d len %d, want 23", flag, len);
    /* A short valuelen truncates; the value stays NUL-terminated at valuelen. */
    memset(v, 'x', sizeof(v));
    CALL(MPI_Info_get(info, "beta", 5, v, &flag));
    CHECK(flag && !strncmp(v, "a som", 5) && memchr(v, 0, 6) != NULL,
          "get beta with valuelen 5 gave \"%.8s\"", v);

    /* Overwrite keeps one key. */
    CALL(MPI_Info_set(info, "alpha", "uno"));
    CALL(MPI_Info_get_nkeys(info, &n));
    CALL(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(n == 3 && flag && !strcmp(v, "uno"), "overwrite alpha: %d keys, value \"%s\"", n, v);

    /* Dup is an independent copy. */
    CALL(MPI_Info_dup(info, &dup));
    CALL(MPI_Info_get_nkeys(dup, &n));
    CHECK(n == 3, "dup has %d keys", n);
    CALL(MPI_Info_get(dup, "gamma", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && !strcmp(v, "3"), "dup gamma: flag %d \"%s\"", flag, v);
    CALL(MPI_Info_set(dup, "gamma", "changed"));
    CALL(MPI_Info_set(dup, "delta", "new"));
    CALL(MPI_Info_get(info, "gamma", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && !strcmp(v, "3"), "changing the dup changed the original (\"%s\")", v);
    CALL(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 3, "adding to the dup changed the original's key count to %d", n);

    /* Delete, and delete of a missing key. */
    CALL(MPI_Info_delete(info, "beta"));
    CALL(MPI_Info_get_nkeys(info, &n));
    CALL(MPI_Info_get(info, "beta", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(n == 2 && !flag && !has_key(info, "beta"), "after delete: %d keys, beta flag %d", n,
          flag);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Info_delete(info, "beta"), MPI_ERR_INFO_NOKEY);
    EXPECT_CLASS(MPI_Info_delete(info, "never-set"), MPI_ERR_INFO_NOKEY);
    CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CALL(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 2, "failed deletes changed the key count to %d", n);

    /* Long keys and values up to the limits. */
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    memset(key, 'k', MPI_MAX_INFO_KEY - 1);
    key[MPI_MAX_INFO_KEY - 1] = 0;
    memset(val, 'v', MPI_MAX_INFO_VAL - 1);
    val[MPI_MAX_INFO_VAL - 1] = 0;
    CALL(MPI_Info_set(info, key, val));
    CALL(MPI_Info_get_valuelen(info, key, &len, &flag));
    CHECK(flag && len == MPI_MAX_INFO_VAL - 1, "long value: valuelen %d", len);
    CALL(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && !strcmp(v, val), "long value read back differs");

    CALL(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "MPI_Info_free did not set MPI_INFO_NULL");
    CALL(MPI_Info_get(dup, "delta", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && !strcmp(v, "new"), "dup lost its key when the original was freed");
    CALL(MPI_Info_free(&dup));
    return mt_done();
}
