#!/bin/sh
# Installs what the benchmark drivers compare Braid against and fetches their inputs (run as root
# on Debian 12; docs/benchmarks.md):
#   - bindfs, the FUSE passthrough reference;
#   - sshfs, the WAN reference, with openssh-server and openssh-client for the sshd that
#     io.braidfs.bench.ref.Sshd starts on a loopback port with a config and keys of its own (it
#     neither uses nor changes the system's sshd; Debian's package may start that one on port 22);
#   - Debian's redis source (redis_*.orig.tar.gz) into target/bench-src, the source tree that
#     io.braidfs.bench.fuse.SourceBuild unpacks and builds for FuseBench and braid bench experiment 7
#     (needs make and gcc);
#   - fsx, the Rust port from crates.io at the version .ci/run builds, for braid bench experiment 9:
#     built with cargo into $BRAID_OUTSIDE_TOOLS (default ~/.cache/braid/outside-tools/bin, where
#     .ci/run puts it and the driver looks first), unless one is there or on the PATH already.
# Safe to run again: installed packages and a fetched tarball are left as they are.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd -P)

missing=""
for p in bindfs make gcc; do
  command -v "$p" >/dev/null 2>&1 || missing="$missing $p"
done
for p in openssh-server openssh-client sshfs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  apt-get update -q
  # shellcheck disable=SC2086
  apt-get install -y -q $missing
fi

mkdir -p "$root/target/bench-src"
cd "$root/target/bench-src"
if ! ls redis_*.orig.tar.gz >/dev/null 2>&1; then
  # Debian's source archive, with a sources list of its own so the system's lists are untouched.
  lists=$(mktemp -d)
  trap 'rm -rf "$lists"' EXIT
  echo 'deb-src http://deb.debian.org/debian bookworm main' >"$lists/sources.list"
  apt_opts="-o Dir::Etc::sourcelist=$lists/sources.list -o Dir::Etc::sourceparts=- \
    -o Dir::State::Lists=$lists -o APT::Get::List-Cleanup=0"
  mkdir -p "$lists/partial"
  # shellcheck disable=SC2086
  apt-get $apt_opts update -q
  # shellcheck disable=SC2086
  apt-get $apt_opts source --download-only -q redis
fi
ls -l "$root"/target/bench-src/redis_*.orig.tar.gz

tools="${BRAID_OUTSIDE_TOOLS:-$HOME/.cache/braid/outside-tools/bin}"
if [ ! -x "$tools/fsx" ] && ! command -v fsx >/dev/null 2>&1; then
  if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo is missing: braid bench experiment 9 needs fsx, built with it" \
      "(rustup, or apt-get install cargo), then run this again" >&2
    exit 1
  fi
  cargo install --quiet --locked --root "$(dirname "$tools")" fsx --version 0.3.2
fi
ls -l "$tools/fsx" 2>/dev/null || command -v fsx
