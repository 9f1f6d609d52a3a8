#!/usr/bin/env bash
# Rebuild the hook watchdog's native libraries (src/hooks/watchdog/<target>.<ext>) from
# src/hooks/watchdog/watchdog.c, one per release target (scripts/targets.ts), with Zig's C
# compiler from PyPI (a virtual environment; never needed at run time or by `bun run build`).
#
#   scripts/watchdog/build.sh [VENV_DIR]     (default ../watchdog-venv beside the checkout)
#
# Deterministic: the same Zig release gives the same bytes (SHA-256 in SOURCES.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${1:-$root/../watchdog-venv}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q ziglang==0.17.1
src=$root/src/hooks/watchdog/watchdog.c
out=$root/src/hooks/watchdog
zig() { "$venv/bin/python" -m ziglang "$@"; }
# target name (as in scripts/targets.ts), Zig target, file name
while read -r name triple file; do
  tmp=$(mktemp -d)
  (cd "$tmp" && zig cc -target "$triple" -O2 -shared -fPIC -s -Wall -Werror -o "$file" "$src")
  mv "$tmp/$file" "$out/$file" # only the library (a Windows build also leaves an import library)
  rm -rf "$tmp"
  echo "$name $(sha256sum "$out/$file" | cut -d' ' -f1) $file"
done <<'TARGETS'
linux-x64 x86_64-linux-gnu.2.17 linux-x64.so
linux-arm64 aarch64-linux-gnu.2.17 linux-arm64.so
linux-x64-musl x86_64-linux-musl linux-x64-musl.so
darwin-x64 x86_64-macos.11.0 darwin-x64.dylib
darwin-arm64 aarch64-macos.11.0 darwin-arm64.dylib
windows-x64 x86_64-windows-gnu windows-x64.dll
TARGETS
