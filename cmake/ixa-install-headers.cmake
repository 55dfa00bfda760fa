# cmake -P script: writes the installable copy of each public header.
# Inputs: SOURCE_DIR (the repository), OUTPUT_DIR (where the copies go, the
# future include/ixa), HEADERS (paths relative to SOURCE_DIR, separated by
# "|").
#
# In the repository a header includes another from the repository root
# (`#include "core/expr.h"`). Installed, the headers sit under
# include/ixa/ and the include directory users get is include/, so the
# copies say `#include "ixa/core/expr.h"`: an application's own core/expr.h
# cannot shadow ixa's, and users write `#include <ixa/core/text.h>`.
string(REPLACE "|" ";" HEADERS "${HEADERS}")
foreach(header IN LISTS HEADERS)
  file(READ ${SOURCE_DIR}/${header} text)
  string(REGEX REPLACE
         "#include \"((core|simplifier|hw|analysis|emit)/[^\"]+)\""
         "#include \"ixa/\\1\"" text "${text}")
  file(WRITE ${OUTPUT_DIR}/${header} "${text}")
endforeach()
