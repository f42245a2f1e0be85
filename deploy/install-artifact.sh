#!/bin/sh
# Installs a packed gateway (`npm pack` of a built checkout) into a folder of its own with
# production dependencies only: no Electron, no tsx, no build toolchain. The Dockerfile and the
# packed-install test (test/integration/packed-install.test.ts) both run this very script.
#   sh deploy/install-artifact.sh /opt/gateway ./gateway-0.1.0.tgz
# sqlite3 is native: its install script fetches a prebuilt binary (GitHub releases) or, when
# that is unreachable, compiles from source (python3, make, g++). A folder of prebuilds can be
# named with npm_config_sqlite3_local_prebuilds (see README, "Platforms").
set -eu
target=$1
tarball=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
mkdir -p "$target"
cd "$target"
# A manifest of its own, so npm installs into this folder and not into a parent project.
[ -f package.json ] || printf '{\n  "name": "gateway-install",\n  "private": true\n}\n' >package.json
npm install --omit=dev --no-audit --no-fund --prefer-offline "$tarball"
