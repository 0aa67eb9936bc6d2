#!/usr/bin/env bash
# Fetch the reference c-blosc2 (3.3.5) shared library and headers, as shipped
# inside the python-blosc2 4.14.1 wheel, into $BLOSC2_REF_DIR (default: <repo>/.ref).
#
# Idempotent: if the library and headers are already there, nothing is downloaded.
# On success prints the reference *lib* directory on stdout (and nothing else).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REF_DIR="${BLOSC2_REF_DIR:-$REPO_ROOT/.ref}"
WHEEL_VERSION="4.14.1"
LIB_DIR="$REF_DIR/blosc2/lib"
INC_DIR="$REF_DIR/blosc2/include"

if [[ -f "$LIB_DIR/libblosc2.so.9" && -f "$INC_DIR/blosc2.h" ]]; then
  echo "$LIB_DIR"
  exit 0
fi

mkdir -p "$REF_DIR/dl"
PY="${PYTHON:-python3}"

shopt -s nullglob
wheels=("$REF_DIR"/dl/blosc2-"$WHEEL_VERSION"-*.whl)
if (( ${#wheels[@]} == 0 )); then
  # Plain download first (lets pip pick the wheel matching this interpreter);
  # fall back to forcing the abi3 manylinux x86_64 wheel for older interpreters.
  if ! "$PY" -m pip download --no-deps "blosc2==$WHEEL_VERSION" -d "$REF_DIR/dl" >&2; then
    "$PY" -m pip download --no-deps --only-binary=:all: \
      --python-version 3.11 --implementation cp --abi abi3 \
      --platform manylinux_2_28_x86_64 \
      "blosc2==$WHEEL_VERSION" -d "$REF_DIR/dl" >&2
  fi
  wheels=("$REF_DIR"/dl/blosc2-"$WHEEL_VERSION"-*.whl)
fi
if (( ${#wheels[@]} == 0 )); then
  echo "fetch-reference: no blosc2-$WHEEL_VERSION wheel downloaded (got an sdist?)" >&2
  exit 1
fi

"$PY" - "${wheels[0]}" "$REF_DIR" <<'PYEOF'
import sys, zipfile, os
whl, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    for info in z.infolist():
        name = info.filename
        if not (name.startswith("blosc2/lib/") or name.startswith("blosc2/include/")):
            continue
        z.extract(info, out)
        mode = (info.external_attr >> 16) & 0o777
        if mode:
            os.chmod(os.path.join(out, name), mode)
PYEOF

if [[ ! -f "$LIB_DIR/libblosc2.so.9" ]]; then
  # Some wheels only ship libblosc2.so; provide the SONAME alias.
  if [[ -f "$LIB_DIR/libblosc2.so" ]]; then
    ln -sf libblosc2.so "$LIB_DIR/libblosc2.so.9"
  else
    echo "fetch-reference: libblosc2.so not found in wheel" >&2
    exit 1
  fi
fi
if [[ ! -f "$LIB_DIR/libblosc2.so" ]]; then
  ln -sf libblosc2.so.9 "$LIB_DIR/libblosc2.so"
fi
if [[ ! -f "$INC_DIR/blosc2.h" ]]; then
  echo "fetch-reference: blosc2.h not found in wheel" >&2
  exit 1
fi
echo "$LIB_DIR"
