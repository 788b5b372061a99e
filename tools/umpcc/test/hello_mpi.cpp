// SPDX-License-Identifier: BSD-3-Clause
// The C++ wrapper's test: mpi.h and ump.h from C++, an allreduce over a
// std::vector, and a name only C++ has (so a C compiler would fail).
#include <mpi.h>
#include <ump.h>

#include <cstdio>
#include <numeric>
#include <vector>

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<long> mine(8), sum(8);
    std::iota(mine.begin(), mine.end(), static_cast<long>(rank));
    MPI_Allreduce(mine.data(), sum.data(), 8, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    bool ok = true;
    for (long i = 0; i < 8; i++) // sum over ranks r of (i + r)
        ok = ok && sum[static_cast<size_t>(i)] == size * i + static_cast<long>(size) * (size - 1) / 2;
    std::printf("rank %d of %d: %s\n", rank, size, ok ? "ok" : "FAILED");
    MPI_Finalize();
    return ok ? 0 : 1;
}
