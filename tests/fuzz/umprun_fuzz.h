/* SPDX-License-Identifier: BSD-3-Clause */
/* umprun_fuzz.c: umprun's state for the harnesses of its parsers. */
#ifndef UMP_UMPRUN_FUZZ_H
#define UMP_UMPRUN_FUZZ_H

#include "umprun.h"

/* umprun's option parser (main.c's parse_args). */
int umprun_parse_args(int argc, char **argv);
/* Frees everything the job holds and sets it back to main.c's start. */
void umprun_reset(void);

#endif /* UMP_UMPRUN_FUZZ_H */
