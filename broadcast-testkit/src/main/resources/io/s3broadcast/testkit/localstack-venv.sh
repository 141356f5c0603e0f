#!/usr/bin/env bash
# Creates, or reuses, a Python virtual environment holding LocalStack (S3 only),
# so tests can run a real LocalStack on the host without Docker.
#
# Usage: localstack-venv.sh [VENV_DIR]
#   VENV_DIR defaults to $S3BROADCAST_LOCALSTACK_VENV, else ~/.cache/s3broadcast/localstack-venv.
#   Python 3.13 is taken from $S3BROADCAST_LOCALSTACK_PYTHON, else pyenv's
#   ~/.pyenv/versions/3.13*/bin/python3, else python3.13 on PATH
#   (LocalStack 2026.3 does not install on 3.11 or 3.12).
#
# Idempotent: a marker file, written last, records what was installed; a venv
# without a matching marker (half-finished or older pins) is deleted and redone.
# Concurrent callers are serialised with flock on VENV_DIR.lock.
# On success the last line printed is the venv's python executable.
set -euo pipefail

VENV_DIR="${1:-${S3BROADCAST_LOCALSTACK_VENV:-$HOME/.cache/s3broadcast/localstack-venv}}"
PACKAGES=(
  'localstack-core[base-runtime]==2026.3.0'
  'cbor2<6'
  'pyopenssl<25'
  'cryptography<45'
  'service-identity'
)
MARKER="$VENV_DIR/.s3broadcast-installed"
WANTED="v1 ${PACKAGES[*]}"

find_python() {
  if [[ -n "${S3BROADCAST_LOCALSTACK_PYTHON:-}" ]]; then
    if ! "$S3BROADCAST_LOCALSTACK_PYTHON" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null; then
      echo "error: S3BROADCAST_LOCALSTACK_PYTHON=$S3BROADCAST_LOCALSTACK_PYTHON is not a working Python 3.13" >&2
      return 1
    fi
    echo "$S3BROADCAST_LOCALSTACK_PYTHON"
    return 0
  fi
  local root="${PYENV_ROOT:-$HOME/.pyenv}" candidate
  for candidate in $(ls -d "$root"/versions/3.13*/bin/python3 2>/dev/null | sort -rV); do
    if [[ -x "$candidate" ]]; then
      echo "$candidate"
      return 0
    fi
  done
  if candidate="$(command -v python3.13)" && "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null; then
    echo "$candidate"
    return 0
  fi
  return 1
}

mkdir -p "$(dirname "$VENV_DIR")"
exec 9>"$VENV_DIR.lock"
if command -v flock >/dev/null; then
  flock 9
fi

if [[ -f "$MARKER" && "$(cat "$MARKER")" == "$WANTED" && -x "$VENV_DIR/bin/python" ]]; then
  echo "localstack venv up to date: $VENV_DIR" >&2
  echo "$VENV_DIR/bin/python"
  exit 0
fi

if ! PYTHON="$(find_python)"; then
  echo "error: no Python 3.13 found (tried \$S3BROADCAST_LOCALSTACK_PYTHON, ~/.pyenv/versions/3.13*/bin/python3, python3.13 on PATH)." >&2
  echo "Install one (e.g. 'pyenv install 3.13') or run only the s3proxy backend: -Ds3broadcast.test.backends=s3proxy" >&2
  exit 3
fi
echo "installing LocalStack into $VENV_DIR with $PYTHON ($("$PYTHON" --version 2>&1))" >&2

rm -rf "$VENV_DIR"
"$PYTHON" -m venv "$VENV_DIR"
"$VENV_DIR/bin/python" -m pip install --disable-pip-version-check --quiet --upgrade pip >&2
"$VENV_DIR/bin/python" -m pip install --disable-pip-version-check --quiet "${PACKAGES[@]}" >&2
"$VENV_DIR/bin/python" -c 'import localstack.runtime.main' >&2
echo "$WANTED" > "$MARKER"
echo "localstack venv ready: $VENV_DIR" >&2
echo "$VENV_DIR/bin/python"
