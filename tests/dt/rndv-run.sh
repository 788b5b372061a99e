#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rndv-run.sh UMPRUN DT_RNDV EXPECT VAR=VALUE...: runs dt_rndv on 2 ranks
# with the variables set; exit 77 (skipped, with the reason) when the
# libfabric provider named by UMP_OFI_PROVIDER is not on this machine, or a
# forced read or write over shm finds cross-memory attach refused.
umprun=$1 prog=$2 expect=$3
shift 3
for kv in "$@"; do
  export "$kv"
done
# A ctest argument cannot hold a semicolon: "tcp+ofi_rxm" names "tcp;ofi_rxm".
if [ -n "$UMP_OFI_PROVIDER" ]; then
  UMP_OFI_PROVIDER=$(printf '%s' "$UMP_OFI_PROVIDER" | tr + ';')
  export UMP_OFI_PROVIDER
fi
if [ "$UMP_TRANSPORTS" = ofi ]; then
  if ! command -v fi_info >/dev/null 2>&1; then
    echo "fi_info not found: cannot tell whether provider $UMP_OFI_PROVIDER exists; skipped"
    exit 77
  fi
  if ! fi_info -p "$UMP_OFI_PROVIDER" -t FI_EP_RDM >/dev/null 2>&1; then
    echo "libfabric provider \"$UMP_OFI_PROVIDER\" is not available here (fi_info -p): skipped"
    exit 77
  fi
fi
# libfabric's sockets and udp;ofi_rxd providers take milliseconds per
# message here: their runs stop below 1 MiB (every threshold is lower).
max=
case "$UMP_OFI_PROVIDER" in sockets|"udp;ofi_rxd") max="--max 300000" ;; esac
out=$("$umprun" -n 2 --timeout 200 "$prog" --expect "$expect" $max 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc -ne 0 ] && [ "$UMP_TRANSPORTS" = shm ] &&
   printf '%s\n' "$out" | grep -q "cross-memory attach to rank .* refused"; then
  echo "cross-memory attach refused on this machine: the shm read and write schemes cannot run; skipped"
  exit 77
fi
exit $rc
