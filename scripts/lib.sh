# Shared by scripts/run.sh and scripts/test.sh: the virtual environment and the database.
# Sourced, not run. Expects the working directory to be the repository root.

set -euo pipefail

PYTHON=${PYTHON:-python3}
VENV=.venv

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

ensure_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    say "Creating the virtual environment in $VENV"
    "$PYTHON" -m venv "$VENV"
  fi
  local stamp="$VENV/.requirements.sha256"
  local want
  want=$(sha256sum requirements.txt | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    say "Installing the pinned requirements (the first time downloads about 3 GB)"
    # Some machines list package mirrors that are absent; pip warns about each, for each package.
    "$VENV/bin/pip" install --disable-pip-version-check -q -r requirements.txt \
      2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
    echo "$want" > "$stamp"
  fi
}

# System packages the application or the tests need, from Debian's archive. Each argument is
# "what-to-look-for:package", where what-to-look-for is a command or a file glob.
ensure_debian_packages() {
  local missing=()
  for spec in "$@"; do
    local probe=${spec%%:*} package=${spec##*:}
    command -v "$probe" >/dev/null 2>&1 || compgen -G "$probe" >/dev/null || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "Installing from Debian: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}" >/dev/null
}

# The review page's viewer (Cornerstone3D from the npm registry, viewer/package-lock.json),
# bundled into static/viewer/. Built when the output is missing or older than its sources.
# "ensure_viewer tests" also wants viewer/node_modules/axe-core, which the accessibility tests
# serve (tests/settings.py).
ensure_viewer() {
  local want
  want=$(cat viewer/package.json viewer/package-lock.json viewer/build.mjs viewer/src/*.js \
    | sha256sum | cut -d' ' -f1)
  if [ "$(cat static/viewer/BUILT_FROM 2>/dev/null)" = "$want" ] && [ -s static/viewer/viewer.js ] \
      && { [ "${1:-}" != tests ] || [ -d viewer/node_modules/axe-core ]; }; then
    return 0
  fi
  command -v npm >/dev/null 2>&1 || ensure_debian_packages npm:npm
  say "Building the image viewer (npm ci, then esbuild)"
  (cd viewer && npm ci --no-audit --no-fund --loglevel=error && VIEWER_SOURCE_HASH="$want" node build.mjs)
}

manage() { "$VENV/bin/python" manage.py "$@"; }
