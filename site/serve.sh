#!/usr/bin/env bash
# Builds the site and serves site/dist on this machine only, with the H200 sample open.
#
#   bash site/serve.sh [PORT]         # default port 8000; SITE_NO_BUILD=1 skips the build
#
# Works offline: the page loads nothing from other origins. Any static file server works
# the same way; this one is Python's, bound to 127.0.0.1.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
port="${1:-8000}"
[ "${SITE_NO_BUILD:-0}" = "1" ] || bash "$here/build.sh"
sample=""
if [ -f "$here/dist/samples/h200.json" ]; then
  sample="?src=samples/h200.json&view=roofline"
fi
echo "serving $here/dist at http://127.0.0.1:$port/$sample  (Ctrl-C stops)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$here/dist"
