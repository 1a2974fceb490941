#!/usr/bin/env bash
# install-deps.sh: installs the Debian packages dgnn builds against, only those missing.
# Used by the README's two commands, by .ci/run and by developers.
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh --fuzz   also clang and its fuzzer runtime (bench/fuzz.sh)
set -euo pipefail
pkgs=(build-essential cmake pkg-config libopenblas-openmp-dev libmetis-dev libglpk-dev libcjson-dev
      libyaml-dev libopenmpi-dev openmpi-bin python3 python3-numpy python3-pytest python3-pip python3-setuptools)
if [ "${1:-}" = "--fuzz" ]; then pkgs+=(clang libclang-rt-14-dev); fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
