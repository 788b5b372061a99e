/* SPDX-License-Identifier: BSD-3-Clause */
/* Names and texts of status codes, generated from the list in ump.h. */
#include "util/util.h"

const char *ump_strerror(int code)
{
    switch (code) {
#define UMP_X_TEXT(name, value, text)                                                              \
    case value:                                                                                    \
        return text;
        UMP_FOREACH_STATUS(UMP_X_TEXT)
#undef UMP_X_TEXT
    }
    return "unknown status code";
}

const char *ump_status_name(int code)
{
    switch (code) {
#define UMP_X_NAME(name, value, text)                                                              \
    case value:                                                                                    \
        return #name;
        UMP_FOREACH_STATUS(UMP_X_NAME)
#undef UMP_X_NAME
    }
    return "UMP_ERR_UNKNOWN";
}
