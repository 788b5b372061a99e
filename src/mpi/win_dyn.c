/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamic windows: MPI_Win_create_dynamic, MPI_Win_attach, MPI_Win_detach.
 * The window's base is MPI_BOTTOM, so a target displacement is an address
 * on the target (from MPI_Get_address there); the target checks that the
 * bytes an operation touches lie in attached memory.
 */
#include <stdlib.h>

#include "mpi/win.h"

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    static const char call[] = "MPI_Win_create_dynamic";
    return ump_win_setup(call, MPI_BOTTOM, 0, 1, info, comm, MPI_WIN_FLAVOR_DYNAMIC, win);
}

bool ump_win_dyn_covers(MPI_Win w, const char *addr, size_t len)
{
    for (int i = 0; i < w->nregions; i++)
        if (addr >= w->regions[i].base &&
            (size_t)(addr - w->regions[i].base) + len <= w->regions[i].len)
            return true;
    return len == 0;
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char call[] = "MPI_Win_attach";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return ump_win_error(win, MPI_ERR_RMA_FLAVOR, call,
                             "the window was not made by MPI_Win_create_dynamic");
    if (size < 0) return ump_win_error(win, MPI_ERR_SIZE, call, "size %ld is negative", (long)size);
    if (!base && size > 0) return ump_win_error(win, MPI_ERR_BASE, call, "base is NULL");
    for (int i = 0; i < win->nregions; i++) {
        char *b = win->regions[i].base;
        if ((char *)base < b + win->regions[i].len && b < (char *)base + size)
            return ump_win_error(win, MPI_ERR_RMA_ATTACH, call,
                                 "[%p, +%ld) overlaps memory already attached", base, (long)size);
    }
    if (win->nregions == win->cregions) {
        int c = win->cregions ? 2 * win->cregions : 4;
        void *p = realloc(win->regions, (size_t)c * sizeof(*win->regions));
        if (!p) return ump_win_error(win, MPI_ERR_NO_MEM, call, "out of memory");
        win->regions = p;
        win->cregions = c;
    }
    win->regions[win->nregions].base = base;
    win->regions[win->nregions].len = (size_t)size;
    win->nregions++;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void *base)
{
    static const char call[] = "MPI_Win_detach";
    UMP_WIN_GUARD(win);
    UMP_WIN_CHECK(call, win);
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return ump_win_error(win, MPI_ERR_RMA_FLAVOR, call,
                             "the window was not made by MPI_Win_create_dynamic");
    for (int i = 0; i < win->nregions; i++)
        if (win->regions[i].base == base) {
            win->regions[i] = win->regions[--win->nregions];
            return MPI_SUCCESS;
        }
    return ump_win_error(win, MPI_ERR_RMA_ATTACH, call, "%p is not the base of attached memory",
                         base);
}
