# Shared by build.sh and test.sh (sourced): installs missing Debian packages,
# configures and builds tilec. Safe to run again: apt is skipped when every
# package is present, and the build is incremental.
set -euo pipefail

TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$TILEC_ROOT/build}
JOBS=${JOBS:-$(nproc)}
TILEC=$BUILD_DIR/tools/tilec/tilec

# Everything needed to build tilec. libncurses-dev and zlib1g-dev provide the
# static libtinfo.a/libz.a that keep the binary free of shared dependencies
# (cmake/TilecStaticDeps.cmake).
BUILD_PACKAGES=(cmake ninja-build g++ python3 llvm-14-dev llvm-14-tools
  libfmt-dev libcli11-dev nlohmann-json3-dev catch2 zlib1g-dev libncurses-dev)
# Additionally needed to run the tests: clang and its sanitizer/libFuzzer
# runtimes for the fuzzer, psutil for lit's per-test time limit.
TEST_PACKAGES=(clang-14 libclang-rt-14-dev python3-psutil)
# The HIP compiler of the compile checks of the AMD targets (Debian 12:
# ROCm 5.2 with clang 15). Optional: where it cannot be installed, the
# test step that needs it says so and is skipped.
HIP_PACKAGES=(hipcc)

log() { printf '==> %s\n' "$*"; }

is_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# install_packages PKG...: apt-get installs the packages that are missing.
install_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    is_installed "$pkg" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "all ${#@} required packages are installed"
    return
  fi
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: missing packages: ${missing[*]}" >&2
    echo "run this script as root, or: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
}

# install_optional_packages PKG...: like install_packages, but a package
# that cannot be installed (not root, not in the archive) is reported and
# skipped.
install_optional_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    is_installed "$pkg" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return
  if [ "$(id -u)" -ne 0 ]; then
    log "optional packages not installed (not root): ${missing[*]}"
    return
  fi
  log "installing optional ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -q && apt-get install -y -q --no-install-recommends \
    "${missing[@]}" </dev/null; }; then
    log "could not install ${missing[*]}; the steps that need them are skipped"
  fi
}

# configure_and_build [CMAKE_ARGS...]: Release build of everything in BUILD_DIR.
configure_and_build() {
  log "configuring $BUILD_DIR"
  cmake -S "$TILEC_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
  log "building with $JOBS jobs"
  cmake --build "$BUILD_DIR" -j "$JOBS"
}
