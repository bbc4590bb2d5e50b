#!/usr/bin/env bash
# Refreshes the images in docs/screenshots from a fresh run of the browser suite. A test
# run only writes web/e2e/screenshots (ignored by git); the docs' images change only when
# this script is run on purpose, and the result is reviewed and committed by hand.
set -euo pipefail
cd "$(dirname "$0")/.."

# The screenshots the docs show, by the name each test saves it under.
docs_images=(run-detail compare heatmap run-detail-rgw compare-rgw list-scaling)

scripts/web-build.sh
cargo build --locked -p keystorm
rm -rf web/e2e/screenshots
npm run e2e
mkdir -p docs/screenshots
for name in "${docs_images[@]}"; do
  src="web/e2e/screenshots/$name.png"
  if [ ! -f "$src" ]; then
    echo "error: the browser suite did not save $src" >&2
    exit 1
  fi
  cp "$src" "docs/screenshots/$name.png"
done
echo "refreshed ${#docs_images[@]} images in docs/screenshots; review them with git diff before committing"
