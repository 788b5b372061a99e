/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_p2p.h - what the point-to-point files of src/mpi share (p2p.c,
 * request.c, bsend.c): message buffers of any datatype and status errors.
 */
#ifndef UMP_MPI_P2P_H
#define UMP_MPI_P2P_H

#include "mpi/mpi_impl.h"

/* A message in contiguous bytes: the user's buffer itself for contiguous
 * types, otherwise a packed copy (tmp, to be freed). */
typedef struct {
    const void *p;
    size_t len;
    void *tmp;
} ump_mpi_msgbuf_t;

/* Bytes of `count` elements of dt into *len; MPI error class. */
int ump_mpi_msg_bytes(const char *call, MPI_Comm comm, int count, MPI_Datatype dt, size_t *len);
/* Sender side: the bytes to send (packs a non-contiguous type). */
int ump_mpi_msg_pack(const char *call, MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                     ump_mpi_msgbuf_t *mb);
/* Packs into a caller's buffer of at least the message's bytes. */
int ump_mpi_pack_into(const char *call, MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                      void *out, size_t len);
/* Receiver side: where the bytes arrive (a temporary buffer for a
 * non-contiguous type, unpacked at completion). */
int ump_mpi_msg_recvbuf(const char *call, MPI_Comm comm, void *buf, int count, MPI_Datatype dt,
                        ump_mpi_msgbuf_t *mb);
/* Unpacks `bytes` received into r->packbuf into r's buffer. */
int ump_mpi_unpack_recv(MPI_Request r, size_t bytes);
/* Raises the error of a completed core status (truncation names sizes). */
int ump_mpi_raise_status(MPI_Comm comm, const char *call, int cls, const ump_status_t *u);

/* MPI_Wait (block) or MPI_Test on one request, errors reported as `call`. */
int ump_mpi_complete(const char *call, MPI_Request *request, bool block, int *flag,
                     MPI_Status *status);

/* Buffered send (bsend.c): copies the message into the attached buffer and
 * starts it; the caller's request (if any) is complete on return. */
int ump_mpi_bsend(const char *call, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                  MPI_Comm comm);

#endif /* UMP_MPI_P2P_H */
