#!/usr/bin/env bash
# Installs what is missing (Debian 12, as root), builds tilec in Release mode
# into build/ and compiles examples/gemm.tile with it into out/.
#
#   bash scripts/build.sh
#
# Environment: BUILD_DIR (default build/), JOBS (default nproc),
# TILEC_EMIT (what the example is compiled to, default below).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# cuda writes gemm.cu with gemm.h and gemm.json beside it; ir writes the
# checked tile IR.
EMIT=${TILEC_EMIT:-cuda}
EXAMPLE=examples/gemm.tile
OUT_DIR=$TILEC_ROOT/out

case "$EMIT" in
  ir) EXT=tir ;;
  cuda) EXT=cu ;;
  hip) EXT=hip ;;
  *) EXT=$EMIT ;;
esac

install_packages "${BUILD_PACKAGES[@]}"
configure_and_build

mkdir -p "$OUT_DIR"
OUTPUT=$OUT_DIR/$(basename "$EXAMPLE" .tile).$EXT
log "compiling $EXAMPLE (--emit=$EMIT)"
"$TILEC" "$TILEC_ROOT/$EXAMPLE" --emit="$EMIT" -o "$OUTPUT"

echo
echo "tilec:  $TILEC (needs only glibc >= 2.36; copy it as is)"
echo "output: $(ls "$OUT_DIR"/"$(basename "$EXAMPLE" .tile)".* | tr '\n' ' ')"
