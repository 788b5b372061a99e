/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libfabric is loaded when the ofi transport opens, not when libump is.
 *
 * Debian's libfabric pulls in provider libraries (libinfinipath, libpsm2)
 * whose constructors replace the handlers of SIGSEGV, SIGABRT, SIGBUS, ...
 * with their own, which print a backtrace and exit with status 1. Linked
 * into libump, they would do that to every ump program, including those
 * that never use the ofi transport: a crashing rank would no longer die
 * of its signal, and umprun could not say which signal killed it. Loaded
 * here, they are only present in jobs that ask for ofi (UMP_TRANSPORTS),
 * and their backtrace handlers are switched off through their own
 * environment variables unless the user set those.
 *
 * Only five libfabric entry points are real symbols that the transport
 * needs, and fi_version, which it reads when present; everything else
 * (fi_domain, fi_send, fi_cq_read, ...) is an inline call through the
 * objects these return.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "xport/ofi/ofi.h"

ump_ofi_lib_t ump_ofi_lib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_rc = UMP_ERR_UNSUPPORTED;

static void *open_library(void)
{
#ifdef UMP_OFI_LIBDIR
    void *h = dlopen(UMP_OFI_LIBDIR "/libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
#endif
    return dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
}

static void load(void)
{
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    setenv("HFI_NO_BACKTRACE", "1", 0);
    void *h = open_library();
    if (!h) {
        ump_info("ofi: libfabric could not be loaded (%s); install libfabric1", dlerror());
        return;
    }
    ump_ofi_lib.getinfo =
        (int (*)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                 struct fi_info **))dlsym(h, "fi_getinfo");
    ump_ofi_lib.freeinfo = (void (*)(struct fi_info *))dlsym(h, "fi_freeinfo");
    ump_ofi_lib.dupinfo = (struct fi_info * (*)(const struct fi_info *)) dlsym(h, "fi_dupinfo");
    ump_ofi_lib.fabric =
        (int (*)(struct fi_fabric_attr *, struct fid_fabric **, void *))dlsym(h, "fi_fabric");
    ump_ofi_lib.strerror = (const char *(*)(int))dlsym(h, "fi_strerror");
    ump_ofi_lib.version = (uint32_t(*)(void))dlsym(h, "fi_version");
    if (!ump_ofi_lib.getinfo || !ump_ofi_lib.freeinfo || !ump_ofi_lib.dupinfo ||
        !ump_ofi_lib.fabric || !ump_ofi_lib.strerror) {
        ump_info("ofi: the libfabric that was loaded lacks fi_getinfo, fi_freeinfo, fi_dupinfo, "
                 "fi_fabric or fi_strerror");
        dlclose(h);
        return;
    }
    load_rc = UMP_OK;
}

int ump_ofi_lib_load(void)
{
    pthread_once(&load_once, load);
    return load_rc;
}

const char *ump_ofi_strerror(int err)
{
    return ump_ofi_lib.strerror ? ump_ofi_lib.strerror(err) : "libfabric not loaded";
}
