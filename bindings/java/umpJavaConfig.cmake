# SPDX-License-Identifier: BSD-3-Clause
# Included by umpConfig.cmake when the Java binding is installed: the jar
# and the JNI library beside libump, and umpjavac.
get_filename_component(_ump_java_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(ump_JAVA_JAR "${_ump_java_prefix}/lib/ump.jar")
set(ump_JAVA_LIBRARY "${_ump_java_prefix}/lib/libump_java.so")
set(ump_UMPJAVAC "${_ump_java_prefix}/bin/umpjavac")
set(ump_JAVA_FOUND TRUE)
unset(_ump_java_prefix)
