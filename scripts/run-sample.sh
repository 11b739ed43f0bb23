#!/usr/bin/env bash
# Sets everything up and deduplicates the bundled sample: an access log with repeats,
# keyed on the whole request and timed from the log's own CLF timestamps.
source "$(dirname "$0")/common.sh"
install_missing "${PACKAGES[@]}"
configure_and_build
set -x
"$BUILD_DIR/src/tlbf-dedup" --version
"$BUILD_DIR/src/tlbf-dedup" -k 1,6-10 -t 4,5 -w 5m --stats "$ROOT/testdata/sample_access.log"
