# SPDX-License-Identifier: BSD-3-Clause
# Makes a man page from one of docs/*.md (run by cmake/install.cmake as
#   cmake -DPANDOC=... -DIN=docs/umprun.md -DOUT=umprun.1 -DVERSION=0.1.0 -P man_page.cmake).
# The page is the document itself: its first line "# name — what it does"
# becomes the NAME section man and whatis(1) expect, the text before the
# first section becomes DESCRIPTION, its "## " sections
# become the page's sections (upper case, as man pages spell them), and
# pandoc's GitHub-flavoured reader turns the tables into tbl tables.
file(READ ${IN} doc)
string(REGEX MATCH "^# ([^\n]*)\n" first "${doc}")
if(NOT first)
  message(FATAL_ERROR "${IN}: the first line is not a '# name — description' heading")
endif()
set(head "${CMAKE_MATCH_1}")
string(LENGTH "${first}" n)
string(SUBSTRING "${doc}" ${n} -1 doc)
# "umprun — start an ump job" -> title UMPRUN, NAME "umprun - start an ump job"
string(REGEX REPLACE " — .*" "" names "${head}")
string(REGEX REPLACE "^[^—]*— " "" what "${head}")
string(REGEX REPLACE ",.*" "" title "${names}")
string(TOUPPER "${title}" title)
string(REGEX MATCHALL "\n## [^\n]*" sections "${doc}")
foreach(s IN LISTS sections)
  string(TOUPPER "${s}" up)
  string(REPLACE "${s}" "${up}" doc "${doc}")
endforeach()
get_filename_component(outdir ${OUT} DIRECTORY)
get_filename_component(base ${OUT} NAME)
set(md "${outdir}/${base}.md")
# What comes before the first section describes the program.
set(desc "")
if(NOT doc MATCHES "^[ \n]*## ")
  set(desc "\n## DESCRIPTION\n")
endif()
file(WRITE ${md} "# ${title}\n\n## NAME\n\n${names} - ${what}\n${desc}${doc}")
execute_process(
  COMMAND ${PANDOC} -f gfm -t man -s --shift-heading-level-by=-1 -M section=1
          -M "header=ump manual" -M "footer=ump ${VERSION}" -o ${OUT} ${md}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pandoc could not make ${OUT} from ${IN}: ${err}")
endif()
file(REMOVE ${md})
