/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_T categories: "ump" holds one category per layer (src/layers.txt),
 * and each layer's category the tunables of that layer, found by their
 * name's prefix; the performance variables are the core's. The set never
 * changes while a program runs, so the stamp of MPI_T_category_changed
 * stays 0.
 */
#include <string.h>

#include "mpi/mpit.h"

static const struct {
    const char *name, *desc;
} cats[] = {
    {"ump", "every ump variable, by layer"},
    {"util", "logging"},
    {"rt", "the runtime: bootstrap, the launcher's connection"},
    {"xport", "transports: shared memory, TCP, UDP and its reliability layer, OFI; the "
              "datagram counters"},
    {"dt", "the datatype engine: layouts, scatter-gather, packing"},
    {"core", "matching, protocols, progress, flow control; the core's counters"},
    {"coll", "collective algorithms and their thresholds"},
    {"mpi", "the MPI interface: one-sided windows"},
};
enum { NCATS = (int)UMP_ARRAY_SIZE(cats), CAT_CORE = 5 };

int ump_mpit_cvar_category(const ump_cfg_t *c)
{
    static const struct {
        const char *prefix;
        int cat;
    } map[] = {
        {"UMP_LOG", 1},   {"UMP_RT_", 2},  {"UMP_BOOTSTRAP", 2}, {"UMP_SHM_", 3},
        {"UMP_TCP_", 3},  {"UMP_UDP_", 3}, {"UMP_REL_", 3},      {"UMP_OFI_", 3},
        {"UMP_STATS", 3}, {"UMP_DT_", 4},  {"UMP_COLL_", 6},     {"UMP_WIN_", 7},
    };
    for (size_t i = 0; i < UMP_ARRAY_SIZE(map); i++)
        if (!strncmp(c->name, map[i].prefix, strlen(map[i].prefix))) return map[i].cat;
    return CAT_CORE;
}

/* Fills indices[0..len) with the members of category cat (kind 'c' cvars,
 * 'p' pvars, 's' subcategories); returns how many there are. */
static int members(int cat, char kind, int len, int *indices)
{
    int n = 0;
    if (kind == 's') {
        if (cat == 0)
            for (int i = 1; i < NCATS; i++, n++)
                if (n < len) indices[n] = i;
    } else if (kind == 'c') {
        for (int i = 0; ump_cfg_at((size_t)i); i++)
            if (ump_mpit_cvar_category(ump_cfg_at((size_t)i)) == cat) {
                if (n < len) indices[n] = i;
                n++;
            }
    } else {
        for (int i = 0; i < ump_mpit_pvar_count(); i++)
            if (ump_mpit_pvar_category(i) == cat) {
                if (n < len) indices[n] = i;
                n++;
            }
    }
    return n;
}

static int check(const char *call, int cat)
{
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    ump_mpit_leave();
    if (cat < 0 || cat >= NCATS)
        return ump_mpit_err(MPI_T_ERR_INVALID_INDEX, call, "cat_index %d is not in [0, %d)", cat,
                            NCATS);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num
int PMPI_T_category_get_num(int *num_cat)
{
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    ump_mpit_leave();
    if (!num_cat)
        return ump_mpit_err(MPI_T_ERR_INVALID, "MPI_T_category_get_num", "num_cat is NULL");
    *num_cat = NCATS;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info
int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    int rc = check("MPI_T_category_get_info", cat_index);
    if (rc != MPI_SUCCESS) return rc;
    ump_mpit_str(cats[cat_index].name, name, name_len);
    ump_mpit_str(cats[cat_index].desc, desc, desc_len);
    if (num_cvars) *num_cvars = members(cat_index, 'c', 0, NULL);
    if (num_pvars) *num_pvars = members(cat_index, 'p', 0, NULL);
    if (num_categories) *num_categories = members(cat_index, 's', 0, NULL);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index
int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    static const char call[] = "MPI_T_category_get_index";
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    ump_mpit_leave();
    if (!name || !cat_index)
        return ump_mpit_err(MPI_T_ERR_INVALID, call, "name or cat_index is NULL");
    for (int i = 0; i < NCATS; i++)
        if (!strcmp(cats[i].name, name)) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    return ump_mpit_err(MPI_T_ERR_INVALID_NAME, call, "no category is named '%s'", name);
}

static int get(const char *call, int cat, int len, int *indices, char kind)
{
    int rc = check(call, cat);
    if (rc != MPI_SUCCESS) return rc;
    if (len < 0 || (len > 0 && !indices))
        return ump_mpit_err(MPI_T_ERR_INVALID, call, "len %d with indices %p", len,
                            (void *)indices);
    members(cat, kind, len, indices);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars
int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return get("MPI_T_category_get_cvars", cat_index, len, indices, 'c');
}

#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return get("MPI_T_category_get_pvars", cat_index, len, indices, 'p');
}

#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories
int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return get("MPI_T_category_get_categories", cat_index, len, indices, 's');
}

#pragma weak MPI_T_category_changed = PMPI_T_category_changed
int PMPI_T_category_changed(int *stamp)
{
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    ump_mpit_leave();
    if (!stamp) return ump_mpit_err(MPI_T_ERR_INVALID, "MPI_T_category_changed", "stamp is NULL");
    *stamp = 0;
    return MPI_SUCCESS;
}
