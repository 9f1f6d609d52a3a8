#!/bin/sh
# Install (or upgrade) the coffer binary for this machine.
#
#   COFFER_RELEASE_URL=https://example.org/coffer/0.1.0 sh install.sh   # download a release
#   sh install.sh /path/to/dist/release                                 # copy from a local directory
#   sh install.sh                                                       # from a checkout: ./dist/release
#
# Picks coffer-<os>-<arch>[-musl][.exe] for `uname -s`/`uname -m` (COFFER_TARGET overrides),
# verifies its SHA-256 against the release's SHA256SUMS, runs it once, and moves it into
# COFFER_INSTALL_DIR (default ~/.local/bin) as `coffer` in one rename: an interrupted or
# refused install leaves the previous binary as it was. POSIX sh; needs curl or wget for URLs,
# and sha256sum, shasum or openssl.
set -eu

say() { printf '%s\n' "$*"; }
die() {
  printf 'coffer install: %s\n' "$*" >&2
  exit 1
}

# --- where from ---------------------------------------------------------------------------
source_arg=${1:-${COFFER_RELEASE_URL:-}}
if [ -z "$source_arg" ]; then
  here=$(cd "$(dirname "$0")" 2>/dev/null && pwd) || here=.
  if [ -f "$here/dist/release/SHA256SUMS" ]; then
    source_arg="$here/dist/release"
  else
    die "no release given: set COFFER_RELEASE_URL to a release URL, or pass a directory holding SHA256SUMS (bun run release writes dist/release)"
  fi
fi
case "$source_arg" in
  http://* | https://*) mode=url ;;
  file://*) mode=dir source_arg=${source_arg#file://} ;;
  *) mode=dir ;;
esac
source_arg=${source_arg%/}

# --- which binary ---------------------------------------------------------------------------
detect_target() {
  os=$(uname -s)
  arch=$(uname -m)
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
    *) die "unsupported OS: $os (builds exist for Linux, macOS and Windows)" ;;
  esac
  case "$arch" in
    x86_64 | amd64 | x64) arch=x64 ;;
    aarch64 | arm64 | armv8*) arch=arm64 ;;
    *) die "unsupported CPU: $arch (builds exist for x64 and arm64)" ;;
  esac
  # An x64 shell under Rosetta on Apple silicon: the native binary is faster.
  if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
    arch=arm64
  fi
  suffix=
  if [ "$os" = linux ]; then
    # glibc answers getconf; otherwise a musl loader (Alpine) means the musl build.
    if ! getconf GNU_LIBC_VERSION >/dev/null 2>&1; then
      if ls /lib/ld-musl-* >/dev/null 2>&1 || (ldd --version 2>&1 || true) | grep -qi musl; then suffix=-musl; fi
    fi
  fi
  [ "$os" = windows ] && [ "$arch" != x64 ] && die "no Windows build for $arch (only windows-x64)"
  [ "$suffix" = -musl ] && [ "$arch" != x64 ] && die "no musl build for $arch (only linux-x64-musl)"
  printf '%s-%s%s' "$os" "$arch" "$suffix"
}

target=${COFFER_TARGET:-$(detect_target)}
exe=
case "$target" in windows-*) exe=.exe ;; esac
file="coffer-$target$exe"

install_dir=${COFFER_INSTALL_DIR:-}
if [ -z "$install_dir" ]; then
  [ -n "${HOME:-}" ] || die "HOME is not set; set COFFER_INSTALL_DIR"
  install_dir="$HOME/.local/bin"
fi
mkdir -p "$install_dir" || die "cannot create $install_dir"
dest="$install_dir/coffer$exe"
# mv onto a directory would put the binary inside it (and report success): refuse first.
[ -d "$dest" ] && die "$dest is a directory; move it away (or set COFFER_INSTALL_DIR to another folder) and run this again. Nothing was installed."
[ -e "$dest" ] && [ ! -f "$dest" ] && die "$dest exists and is not a regular file; move it away and run this again. Nothing was installed."

# The download lands next to its destination, so the final step is a rename on one file system.
tmp="$install_dir/.coffer.$$.tmp$exe" # Windows runs only files named .exe
sums="$install_dir/.coffer-SHA256SUMS.$$.tmp"
cleanup() { rm -f "$tmp" "$sums"; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM HUP

fetch() { # fetch <name> <out>
  if [ "$mode" = dir ]; then
    [ -f "$source_arg/$1" ] || die "$source_arg/$1 not found (is $source_arg a release directory?)"
    cp "$source_arg/$1" "$2" || die "could not copy $source_arg/$1"
  elif command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$2" "$source_arg/$1" || die "download failed: $source_arg/$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$source_arg/$1" || die "download failed: $source_arg/$1"
  else
    die "need curl or wget to download $source_arg/$1"
  fi
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 "$1" | sed 's/^.*= *//'
  else
    die "need sha256sum, shasum or openssl to verify the download"
  fi
}

say "coffer install: $file from $source_arg"
fetch SHA256SUMS "$sums"
expected=$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1; exit }' "$sums")
[ -n "$expected" ] || die "SHA256SUMS has no line for $file (no build for $target in this release)"
fetch "$file" "$tmp"
actual=$(sha256_of "$tmp")
if [ "$actual" != "$expected" ]; then
  die "checksum mismatch for $file: expected $expected, got $actual. The download is corrupt or was tampered with; nothing was installed, and $dest is as it was."
fi
say "checksum ok: sha256 $actual"
chmod 755 "$tmp"

version=
if [ -z "${COFFER_TARGET:-}" ]; then # a forced target may be for another machine
  hint=
  case "$target" in *-musl) hint=" (on Alpine it needs: apk add libstdc++)" ;; esac
  version=$("$tmp" --version 2>/dev/null) || die "the downloaded $file does not run on this machine$hint; nothing was installed"
fi

previous=
[ -x "$dest" ] && previous=$("$dest" --version 2>/dev/null || true)
if [ -n "$previous" ] && [ "$previous" = "$version" ] && [ "$(sha256_of "$dest")" = "$actual" ]; then
  say "already up to date: $dest is coffer $version"
else
  mv -f "$tmp" "$dest" || die "could not move the new binary to $dest"
  [ -f "$dest" ] && [ ! -d "$dest" ] || die "$dest is not the installed binary after the move; check that folder"
  if [ -n "$previous" ] && [ "$previous" = "$version" ]; then
    say "reinstalled $dest: coffer $version (same version, another build)"
  elif [ -n "$previous" ]; then
    say "upgraded $dest: coffer $previous -> ${version:-$target}"
  else
    say "installed $dest${version:+: coffer $version}"
  fi
fi

# The file a new shell reads: the same choice as the README's set-up block.
case "${SHELL:-}" in
  */zsh) rc='~/.zshrc' ;;
  */bash) rc='~/.bashrc' ;;
  *) rc='~/.profile' ;;
esac
case ":${PATH:-}:" in
  *":$install_dir:"*) ;;
  *)
    say ""
    say "$install_dir is not on your PATH. Add it for new shells, and for this one:"
    say "  echo 'export PATH=\"$install_dir:\$PATH\"' >> $rc"
    say "  export PATH=\"$install_dir:\$PATH\""
    ;;
esac
say ""
say "Next: connect your agents (each link prints what it changed):"
if "$dest" link --help 2>/dev/null | grep -q -- '--all'; then
  say "  coffer link --all        # or one: coffer link claude | codex | gemini | cursor | windsurf | opencode"
else
  say "  coffer link claude       # likewise: codex, gemini, cursor, windsurf, opencode"
fi
