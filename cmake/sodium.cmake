# SPDX-License-Identifier: BSD-3-Clause
# libsodium (Debian: libsodium-dev) supplies the HMAC-SHA256 and the random
# nonces of the connection handshake (src/util/auth.c). Required: every
# connection a job makes is authenticated. Include after the ump_util, ump,
# ump_archive and ump_static targets exist.
find_package(PkgConfig REQUIRED)
pkg_check_modules(SODIUM REQUIRED IMPORTED_TARGET libsodium)
target_link_libraries(ump_util PRIVATE PkgConfig::SODIUM)
target_link_libraries(ump PRIVATE PkgConfig::SODIUM)
target_link_libraries(ump_archive PUBLIC PkgConfig::SODIUM)
target_link_libraries(ump_static INTERFACE PkgConfig::SODIUM)
