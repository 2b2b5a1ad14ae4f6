# Shared by the scripts in this folder: find the project, install what it needs from Debian.
# Sourced, not run.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT

# The C libraries Efferent links, as pkg-config names and the Debian packages that provide them.
EFFERENT_PKGCONFIG=(libsodium zlib sqlite3 libmicrohttpd)
EFFERENT_APT=(libsodium-dev zlib1g-dev libsqlite3-dev libmicrohttpd-dev pkg-config)

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# Installs the Debian packages the build needs when any is missing: as root with apt-get, otherwise
# says exactly what to run and stops.
ensure_packages() {
    local missing=()
    command -v pkg-config >/dev/null 2>&1 || missing=("${EFFERENT_APT[@]}")
    if [ ${#missing[@]} -eq 0 ]; then
        for lib in "${EFFERENT_PKGCONFIG[@]}"; do
            pkg-config --exists "$lib" || { missing=("${EFFERENT_APT[@]}"); break; }
        done
    fi
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ]; then
        say "installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null
        apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "Efferent needs these Debian packages: sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
}

ensure_swift() {
    command -v swift >/dev/null 2>&1 && return 0
    for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        if [ -x "$dir/swift" ]; then export PATH="$dir:$PATH"; return 0; fi
    done
    echo "Efferent needs the Swift 6 toolchain on PATH (https://www.swift.org/install/linux/)." >&2
    exit 1
}

# The Python reader's one dependency (PyCA cryptography), and pytest for its own suite.
ensure_python_reader() {
    command -v python3 >/dev/null 2>&1 || { echo "the interop reader needs python3 (apt-get install -y python3 python3-pip)" >&2; exit 1; }
    if ! python3 -c "import cryptography" >/dev/null 2>&1 || ! python3 -c "import pytest" >/dev/null 2>&1; then
        say "installing the Python reader's requirements"
        python3 -m pip install -q -r "$ROOT/interop/requirements.txt" pytest >/dev/null
    fi
}
