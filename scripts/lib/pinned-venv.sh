# Sourced by the scripts that run Python tools: pinned_venv VENV REQUIREMENTS TOOL makes
# (or refreshes) a virtualenv at VENV holding exactly the packages of REQUIREMENTS,
# unless VENV/bin/TOOL is there and was installed from the same file. Installs Debian's
# python3-venv first when Python cannot make a venv and this runs as root.
pinned_venv() {
  local venv=$1 requirements=$2 tool=$3
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-venv ||
        { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-venv; }
    else
      echo "error: python3 cannot make a venv; install python3-venv" >&2
      exit 1
    fi
  fi
  if [ ! -x "$venv/bin/$tool" ] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$requirements"
    cp "$requirements" "$venv/requirements.txt"
  fi
}
