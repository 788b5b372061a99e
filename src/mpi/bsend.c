/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffered sends. MPI_Buffer_attach hands ump a user buffer; each buffered
 * message takes exactly MPI_BSEND_OVERHEAD bytes of bookkeeping (the block
 * header below, aligned inside those bytes) plus its packed data, so a
 * buffer sized by the standard's rule (sum of data + overhead) holds
 * exactly its messages. Blocks are placed first-fit
 * between the blocks in flight, which are kept sorted by address. A block
 * is given back when its core send completes (checked whenever space is
 * needed). No room even after that is MPI_ERR_BUFFER, as MPI 3.1 3.6
 * requires. MPI_Buffer_detach waits for every block to be sent.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_p2p.h"
#include "util/util.h"

typedef struct block {
    struct block *next; /* next block in address order */
    char *start;        /* first byte of the block (the header may sit a little after) */
    size_t size;        /* bytes taken from start: MPI_BSEND_OVERHEAD + data */
    ump_req_t req;      /* the core send of the data at start + MPI_BSEND_OVERHEAD */
} block_t;

enum { HDR_ALIGN = _Alignof(block_t) };
_Static_assert(sizeof(block_t) + HDR_ALIGN - 1 <= MPI_BSEND_OVERHEAD,
               "an aligned block header fits the overhead");

/* Its own lock, not ump_mpi_lock: it is held across core calls, whose
 * progress may run hooks that take ump_mpi_lock. */
static pthread_mutex_t bs_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    bool attached;
    char *buf;  /* the attached buffer as given */
    int size;   /* its size as given */
    char *base; /* first byte */
    char *end;
    block_t *head; /* blocks in flight, by address */
} bs;

/* Gives back the blocks whose sends completed; `wait` waits for all. */
static void reclaim(bool wait)
{
    block_t **pp = &bs.head;
    while (*pp) {
        block_t *b = *pp;
        int done = 1;
        if (wait)
            ump_wait(&b->req, UMP_STATUS_IGNORE);
        else
            ump_test(&b->req, &done, UMP_STATUS_IGNORE);
        if (done)
            *pp = b->next;
        else
            pp = &b->next;
    }
}

/* First-fit placement of `need` bytes; links the block in address order. */
static block_t *place(size_t need)
{
    char *cursor = bs.base;
    block_t **pp = &bs.head;
    for (;;) {
        char *limit = *pp ? (*pp)->start : bs.end;
        if (limit >= cursor && (size_t)(limit - cursor) >= need) {
            block_t *b = (block_t *)UMP_ALIGN_UP((uintptr_t)cursor, HDR_ALIGN);
            b->next = *pp;
            b->start = cursor;
            b->size = need;
            b->req = UMP_REQ_NULL;
            *pp = b;
            return b;
        }
        if (!*pp) return NULL;
        cursor = (*pp)->start + (*pp)->size;
        pp = &(*pp)->next;
    }
}

static void unlink_block(block_t *b)
{
    for (block_t **pp = &bs.head; *pp; pp = &(*pp)->next)
        if (*pp == b) {
            *pp = b->next;
            return;
        }
}

int ump_mpi_bsend(const char *call, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                  MPI_Comm comm)
{
    size_t len;
    int rc = ump_mpi_msg_bytes(call, comm, count, dt, &len);
    if (rc != MPI_SUCCESS) return rc;
    size_t need = MPI_BSEND_OVERHEAD + len;
    pthread_mutex_lock(&bs_lock);
    if (!bs.attached) {
        pthread_mutex_unlock(&bs_lock);
        return ump_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "no buffer is attached (MPI_Buffer_attach) for a buffered send");
    }
    block_t *b = place(need);
    if (!b) {
        reclaim(false);
        b = place(need);
    }
    if (!b) {
        size_t total = (size_t)(bs.end - bs.base);
        pthread_mutex_unlock(&bs_lock);
        return ump_mpi_error(comm, MPI_ERR_BUFFER, call,
                             "the attached buffer has no room for %zu bytes (%zu data + "
                             "MPI_BSEND_OVERHEAD); it holds %zu bytes",
                             need, len, total);
    }
    char *data = b->start + MPI_BSEND_OVERHEAD;
    rc = ump_mpi_pack_into(call, comm, buf, count, dt, data, len);
    if (rc == MPI_SUCCESS) {
        int urc = ump_isend(data, len, UMP_BYTE, ump_mpi_world_rank(comm, dest), tag, comm->ctx_p2p,
                            &b->req);
        if (urc != UMP_OK)
            rc = ump_mpi_error(comm, ump_mpi_class_of(urc), call, "%s (destination rank %d)",
                               ump_strerror(urc), dest);
    }
    if (rc != MPI_SUCCESS) unlink_block(b);
    pthread_mutex_unlock(&bs_lock);
    return rc;
}

void ump_mpi_bsend_fini(void)
{
    pthread_mutex_lock(&bs_lock);
    reclaim(true);
    memset(&bs, 0, sizeof(bs));
    pthread_mutex_unlock(&bs_lock);
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    static const char call[] = "MPI_Buffer_attach";
    UMP_MPI_CHECK_INIT(call);
    if (size < 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "size %d is negative", size);
    if (!buffer && size > 0)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_BUFFER, call, "buffer is NULL");
    pthread_mutex_lock(&bs_lock);
    if (bs.attached) {
        pthread_mutex_unlock(&bs_lock);
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_BUFFER, call,
                             "a buffer is already attached; detach it first");
    }
    bs.attached = true;
    bs.buf = buffer;
    bs.size = size;
    bs.base = buffer;
    bs.end = (char *)buffer + size;
    bs.head = NULL;
    pthread_mutex_unlock(&bs_lock);
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    static const char call[] = "MPI_Buffer_detach";
    UMP_MPI_CHECK_INIT(call);
    if (!buffer_addr || !size)
        return ump_mpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "buffer_addr or size is NULL");
    pthread_mutex_lock(&bs_lock);
    /* Detaching blocks until the buffered messages have left (MPI 3.1 3.6.1). */
    reclaim(true);
    *(void **)buffer_addr = bs.buf;
    *size = bs.size;
    memset(&bs, 0, sizeof(bs));
    pthread_mutex_unlock(&bs_lock);
    return MPI_SUCCESS;
}
