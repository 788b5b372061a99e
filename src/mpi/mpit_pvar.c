/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_T performance variables: the core's counters (ump_stats_get), which
 * count the point-to-point traffic of every layer above it.
 *
 * The core_* variables are the core's own counters, the xport_* ones those
 * of the transports that keep their own reliability (udp), summed.
 * The counters are MPI_T_PVAR_CLASS_COUNTER, not continuous: a handle
 * counts only while started, from zero (MPI 3.1 14.3.7), keeping the
 * total of earlier start..stop spans. core_requests is a
 * MPI_T_PVAR_CLASS_LEVEL, continuous and read-only. None can be written;
 * reset and readreset apply to the counters.
 */
#include <stddef.h>
#include <string.h>

#include "mpi/mpit.h"

typedef struct {
    const char *name, *desc;
    int var_class;
    size_t offset; /* in ump_stats_t */
    int category;  /* mpit_cat.c: 3 xport, 5 core */
} pvar_t;

#define COUNTER(field, desc)                                                                       \
    {                                                                                              \
        "core_" #field, desc, MPI_T_PVAR_CLASS_COUNTER, offsetof(ump_stats_t, field), 5            \
    }
#define XCOUNTER(field, desc)                                                                      \
    {                                                                                              \
        "xport_" #field, desc, MPI_T_PVAR_CLASS_COUNTER, offsetof(ump_stats_t, xp_##field), 3      \
    }
static const pvar_t pvars[] = {
    COUNTER(msgs_sent, "point-to-point messages sent (every layer's, eager and rendezvous)"),
    COUNTER(bytes_sent, "bytes of the messages sent"),
    COUNTER(rdv_sent, "messages sent by rendezvous (above the transport's eager limit)"),
    COUNTER(msgs_recv, "messages arrived from other ranks or this one"),
    COUNTER(bytes_recv, "bytes of the messages arrived"),
    COUNTER(unexpected, "messages arrived before a matching receive was posted"),
    COUNTER(progress, "passes of the progress engine"),
    {"core_requests", "requests handed out and not yet completed and released",
     MPI_T_PVAR_CLASS_LEVEL, offsetof(ump_stats_t, requests), 5},
    XCOUNTER(sent, "datagrams sent the first time by the transports with their own "
                   "reliability (udp; 0 on shm and tcp)"),
    XCOUNTER(received, "datagrams of data accepted (udp)"),
    XCOUNTER(retransmitted, "datagrams sent again after a timeout or a gap (udp)"),
    XCOUNTER(duplicates, "datagrams received twice and dropped (udp)"),
    XCOUNTER(corrupted, "datagrams failing the checksum or malformed, dropped (udp)"),
    XCOUNTER(timeouts, "retransmission timer expiries (udp)"),
};
#undef COUNTER
#undef XCOUNTER

struct ump_mpit_session {
    uint32_t magic;
    struct ump_mpit_pvar_handle *handles;
};

struct ump_mpit_pvar_handle {
    uint32_t magic;
    struct ump_mpit_pvar_handle *next;
    struct ump_mpit_session *session;
    int index;
    bool running;
    uint64_t base; /* the counter when last started or reset */
    uint64_t acc;  /* counted in earlier spans */
};

/* MPI_T_PVAR_ALL_HANDLES: an address that no handle has. */
struct ump_mpit_pvar_handle ump_mpit_pvar_all_handles;

enum { SESSION_MAGIC = 0x5345534e, PHANDLE_MAGIC = 0x5056484e };

int ump_mpit_pvar_count(void)
{
    return (int)UMP_ARRAY_SIZE(pvars);
}

int ump_mpit_pvar_category(int pvar_index)
{
    return pvars[pvar_index].category;
}

static bool continuous(int i)
{
    return pvars[i].var_class != MPI_T_PVAR_CLASS_COUNTER;
}

static uint64_t current(int i)
{
    ump_stats_t st;
    ump_stats_get(&st);
    uint64_t v;
    memcpy(&v, (const char *)&st + pvars[i].offset, sizeof(v));
    return v;
}

#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num
int PMPI_T_pvar_get_num(int *num_pvar)
{
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    ump_mpit_leave();
    if (!num_pvar) return ump_mpit_err(MPI_T_ERR_INVALID, "MPI_T_pvar_get_num", "num_pvar is NULL");
    *num_pvar = ump_mpit_pvar_count();
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info
int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *binding, int *readonly, int *continuous_, int *atomic)
{
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    ump_mpit_leave();
    if (pvar_index < 0 || pvar_index >= ump_mpit_pvar_count())
        return ump_mpit_err(MPI_T_ERR_INVALID_INDEX, "MPI_T_pvar_get_info",
                            "pvar_index %d is not in [0, %d)", pvar_index, ump_mpit_pvar_count());
    const pvar_t *p = &pvars[pvar_index];
    ump_mpit_str(p->name, name, name_len);
    if (verbosity) *verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
    if (var_class) *var_class = p->var_class;
    if (datatype) *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype) *enumtype = MPI_T_ENUM_NULL;
    ump_mpit_str(p->desc, desc, desc_len);
    if (binding) *binding = MPI_T_BIND_NO_OBJECT;
    if (readonly) *readonly = continuous(pvar_index);
    if (continuous_) *continuous_ = continuous(pvar_index);
    if (atomic) *atomic = 1; /* a handle is read and reset under one lock */
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index
int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    static const char call[] = "MPI_T_pvar_get_index";
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    ump_mpit_leave();
    if (!name || !pvar_index)
        return ump_mpit_err(MPI_T_ERR_INVALID, call, "name or pvar_index is NULL");
    for (int i = 0; i < ump_mpit_pvar_count(); i++)
        if (!strcmp(pvars[i].name, name) && pvars[i].var_class == var_class) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return ump_mpit_err(MPI_T_ERR_INVALID_NAME, call,
                        "no performance variable of class %d is named '%s'", var_class, name);
}

#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create
int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    static const char call[] = "MPI_T_pvar_session_create";
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    ump_mpit_leave();
    if (!session) return ump_mpit_err(MPI_T_ERR_INVALID, call, "session is NULL");
    struct ump_mpit_session *s = calloc(1, sizeof(*s));
    if (!s) return ump_mpit_err(MPI_T_ERR_OUT_OF_SESSIONS, call, "out of memory");
    s->magic = SESSION_MAGIC;
    *session = s;
    return MPI_SUCCESS;
}

static bool session_ok(MPI_T_pvar_session s)
{
    return s && s->magic == SESSION_MAGIC;
}

#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free
int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    static const char call[] = "MPI_T_pvar_session_free";
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!session || !session_ok(*session)) {
        ump_mpit_leave();
        return ump_mpit_err(MPI_T_ERR_INVALID_SESSION, call, "not a session");
    }
    struct ump_mpit_session *s = *session;
    while (s->handles) {
        struct ump_mpit_pvar_handle *h = s->handles;
        s->handles = h->next;
        h->magic = 0;
        free(h);
    }
    s->magic = 0;
    free(s);
    ump_mpit_leave();
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    static const char call[] = "MPI_T_pvar_handle_alloc";
    (void)obj_handle; /* bound to no object */
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!session_ok(session))
        rc = ump_mpit_err(MPI_T_ERR_INVALID_SESSION, call, "not a session");
    else if (pvar_index < 0 || pvar_index >= ump_mpit_pvar_count())
        rc = ump_mpit_err(MPI_T_ERR_INVALID_INDEX, call, "pvar_index %d is not in [0, %d)",
                          pvar_index, ump_mpit_pvar_count());
    else if (!handle || !count)
        rc = ump_mpit_err(MPI_T_ERR_INVALID, call, "handle or count is NULL");
    struct ump_mpit_pvar_handle *h = rc == MPI_SUCCESS ? calloc(1, sizeof(*h)) : NULL;
    if (rc == MPI_SUCCESS && !h) rc = ump_mpit_err(MPI_T_ERR_OUT_OF_HANDLES, call, "out of memory");
    if (h) {
        h->magic = PHANDLE_MAGIC;
        h->session = session;
        h->index = pvar_index;
        h->running = continuous(pvar_index);
        h->next = session->handles;
        session->handles = h;
        *handle = h;
        *count = 1;
    }
    ump_mpit_leave();
    return rc;
}

/* Lock held. */
static int check_handle(const char *call, MPI_T_pvar_session s, MPI_T_pvar_handle h, bool all_ok)
{
    if (!session_ok(s)) return ump_mpit_err(MPI_T_ERR_INVALID_SESSION, call, "not a session");
    if (h == MPI_T_PVAR_ALL_HANDLES && all_ok) return MPI_SUCCESS;
    if (!h || h->magic != PHANDLE_MAGIC || h->session != s)
        return ump_mpit_err(MPI_T_ERR_INVALID_HANDLE, call,
                            "not a performance variable handle of this session");
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free
int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    static const char call[] = "MPI_T_pvar_handle_free";
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    rc = handle ? check_handle(call, session, *handle, false)
                : ump_mpit_err(MPI_T_ERR_INVALID, call, "handle is NULL");
    if (rc == MPI_SUCCESS) {
        for (struct ump_mpit_pvar_handle **pp = &session->handles; *pp; pp = &(*pp)->next)
            if (*pp == *handle) {
                *pp = (*handle)->next;
                break;
            }
        (*handle)->magic = 0;
        free(*handle);
        *handle = MPI_T_PVAR_HANDLE_NULL;
    }
    ump_mpit_leave();
    return rc;
}

static uint64_t value(const struct ump_mpit_pvar_handle *h)
{
    if (continuous(h->index)) return current(h->index);
    uint64_t now = h->running ? current(h->index) : h->base;
    return h->acc + (now >= h->base ? now - h->base : 0);
}

/* Applies op to h, or to every handle of s that allows it for
 * MPI_T_PVAR_ALL_HANDLES. Lock held. */
enum { START, STOP, RESET };
static int apply(const char *call, MPI_T_pvar_session s, MPI_T_pvar_handle h, int op)
{
    int rc = check_handle(call, s, h, true);
    if (rc != MPI_SUCCESS) return rc;
    bool all = h == MPI_T_PVAR_ALL_HANDLES;
    for (struct ump_mpit_pvar_handle *x = all ? s->handles : h; x; x = all ? x->next : NULL) {
        if (continuous(x->index)) {
            if (all) continue;
            return ump_mpit_err(op == RESET ? MPI_T_ERR_PVAR_NO_WRITE : MPI_T_ERR_PVAR_NO_STARTSTOP,
                                call, "%s is continuous and read-only", pvars[x->index].name);
        }
        if (op == START && !x->running) {
            x->base = current(x->index);
            x->running = true;
        } else if (op == STOP && x->running) {
            x->acc += current(x->index) - x->base;
            x->running = false;
        } else if (op == RESET) {
            x->acc = 0;
            x->base = current(x->index);
        }
    }
    return MPI_SUCCESS;
}

#define APPLY(Name, op)                                                                            \
    _Pragma(UMP_MPIT_STR(weak MPI_T_pvar_##Name = PMPI_T_pvar_##Name)) int PMPI_T_pvar_##Name(     \
        MPI_T_pvar_session session, MPI_T_pvar_handle handle)                                      \
    {                                                                                              \
        int rc = ump_mpit_enter();                                                                 \
        if (rc != MPI_SUCCESS) return rc;                                                          \
        rc = apply("MPI_T_pvar_" #Name, session, handle, op);                                      \
        ump_mpit_leave();                                                                          \
        return rc;                                                                                 \
    }
#define UMP_MPIT_STR(x) #x
APPLY(start, START)
APPLY(stop, STOP)
APPLY(reset, RESET)

static int read_(const char *call, MPI_T_pvar_session s, MPI_T_pvar_handle h, void *buf, bool reset)
{
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    rc = check_handle(call, s, h, false);
    if (rc == MPI_SUCCESS && !buf) rc = ump_mpit_err(MPI_T_ERR_INVALID, call, "buf is NULL");
    if (rc == MPI_SUCCESS && reset && continuous(h->index))
        rc = ump_mpit_err(MPI_T_ERR_PVAR_NO_WRITE, call, "%s is read-only", pvars[h->index].name);
    if (rc == MPI_SUCCESS) {
        uint64_t v = value(h);
        memcpy(buf, &v, sizeof(v)); /* MPI_UNSIGNED_LONG_LONG */
        if (reset) apply(call, s, h, RESET);
    }
    ump_mpit_leave();
    return rc;
}

#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read
int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    return read_("MPI_T_pvar_read", session, handle, buf, false);
}

#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset
int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    return read_("MPI_T_pvar_readreset", session, handle, buf, true);
}

#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write
int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    static const char call[] = "MPI_T_pvar_write";
    (void)buf;
    int rc = ump_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    rc = check_handle(call, session, handle, false);
    if (rc == MPI_SUCCESS)
        rc = ump_mpit_err(MPI_T_ERR_PVAR_NO_WRITE, call,
                          "%s counts what the core did; it "
                          "cannot be written",
                          pvars[handle->index].name);
    ump_mpit_leave();
    return rc;
}
