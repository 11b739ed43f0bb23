#!/usr/bin/env bash
# Every header the library installs (include/tlbf/, detail/ included) says its licence on its
# first line, as the project's LICENSE does: `// SPDX-License-Identifier: MIT`.
source "$(dirname "$0")/../lib.bash"
: "${SOURCE_DIR:?}"
headers=$(cd "$SOURCE_DIR" && find include/tlbf -type f | sort)
check "the library has headers" 1 "$([ -n "$headers" ] && echo 1 || echo 0)"
without=$(cd "$SOURCE_DIR" && for h in $headers; do
  [ "$(head -n 1 "$h")" = "// SPDX-License-Identifier: MIT" ] || echo "$h"
done)
check "every installed header opens with the MIT licence identifier" "" "$without"
grep -q "^MIT License" "$SOURCE_DIR/LICENSE" && licence=MIT || licence="$(head -n 1 "$SOURCE_DIR/LICENSE")"
check "the project's LICENSE is MIT" MIT "$licence"
finish
