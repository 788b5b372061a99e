/* SPDX-License-Identifier: BSD-3-Clause */
#include "mt.h"
int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "inter_coll");
    return mt_done();
}
