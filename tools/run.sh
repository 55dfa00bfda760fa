#!/usr/bin/env bash
# The main job: install what is missing, build, and answer the bundled
# example requests (tools/examples/requests.jsonl), printing the responses.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
status=0
for f in tools/examples/*.jsonl; do
  echo "== $f" >&2
  build/bin/ixa query "$f" || status=$?
done
exit $status
