# Shared by the scripts in this folder: find the project, install what it needs from Debian.
# Sourced, not run.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT
# Debug builds from the scripts optimize the hot libraries (see optimizedInDebug in Package.swift):
# every script sets the same value, so switching between them never rebuilds.
export EFFERENT_OPTIMIZE_DEBUG="${EFFERENT_OPTIMIZE_DEBUG:-1}"

# The C libraries Efferent links, as pkg-config names and the Debian packages that provide them.
EFFERENT_PKGCONFIG=(libsodium zlib sqlite3 libmicrohttpd libpq libcurl libqrencode libgfshare)
EFFERENT_APT=(libsodium-dev zlib1g-dev libsqlite3-dev libmicrohttpd-dev libpq-dev libcurl4-openssl-dev libqrencode-dev libgfshare-dev pkg-config)

# Each step says how long the script has run, so a slow phase shows in any log.
say() { printf '\033[1m==> [%dm%02ds] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

# Installs Debian packages as root with apt-get; otherwise says exactly what to run (after `why`)
# and stops. Usage: apt_install "why they are needed" package…
apt_install() {
    local why="$1"
    shift
    if [ "$(id -u)" -eq 0 ]; then
        say "installing $*"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null
        apt-get install -y -qq "$@" >/dev/null
    else
        echo "$why: sudo apt-get install -y $*" >&2
        exit 1
    fi
}

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
    apt_install "Efferent needs these Debian packages" "${missing[@]}"
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

# The independent SMART Health Links receiver's clients (interop/shl_check.py): jwcrypto for JWE and
# fhir.resources for FHIR's R4B models.
ensure_shl_clients() {
    if ! python3 -c "import jwcrypto, fhir.resources.R4B" >/dev/null 2>&1; then
        say "installing jwcrypto and fhir.resources for the shared-link checks"
        python3 -m pip install -q -r "$ROOT/interop/shl-requirements.txt" >/dev/null
    fi
}

# DuckDB (with its sqlite scanner, which DuckDB cannot download here) and Datasette, the engines
# documents/sql.md names, which scripts/interop opens an export with.
ensure_sql_engines() {
    if ! python3 -c "import duckdb, duckdb_extension_sqlite_scanner" >/dev/null 2>&1 || ! command -v datasette >/dev/null 2>&1; then
        say "installing DuckDB and Datasette for the SQL export's checks"
        python3 -m pip install -q -r "$ROOT/interop/engines-requirements.txt" >/dev/null
    fi
}

# What the recovery kit's tests compare against: libgfshare's own gfsplit and gfcombine (Debian's
# libgfshare-bin), and the BIP-39 `mnemonic` package from PyPI (trezor/python-mnemonic).
ensure_kit_clients() {
    command -v gfsplit >/dev/null 2>&1 && command -v gfcombine >/dev/null 2>&1 \
        || apt_install "The split-kit tests compare with libgfshare's own tools" libgfshare-bin
    command -v python3 >/dev/null 2>&1 || { echo "the kit tests need python3 (apt-get install -y python3 python3-pip)" >&2; exit 1; }
    if ! python3 -c "import mnemonic" >/dev/null 2>&1; then
        say "installing the BIP-39 mnemonic package for the kit tests"
        python3 -m pip install -q -r "$ROOT/Tests/Fixtures/kit/requirements.txt" >/dev/null
    fi
}

# The official MCP Python SDK, which the CLI tests use as a real client of `efferent mcp`.
ensure_mcp_client() {
    command -v python3 >/dev/null 2>&1 || { echo "the MCP client test needs python3 (apt-get install -y python3 python3-pip)" >&2; exit 1; }
    if ! python3 -c "import mcp" >/dev/null 2>&1; then
        say "installing the MCP Python SDK for the MCP client test"
        python3 -m pip install -q -r "$ROOT/Tests/Fixtures/mcp/requirements.txt" >/dev/null
    fi
}

# The browser checks' parts: Debian's Chromium and its driver, and Python's Selenium (pip, as the
# interop reader's requirements). Installed when missing as root; otherwise says what to install
# and stops, since a browser check that cannot run must fail, never pass in silence.
ensure_browser() {
    local missing=()
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
    [ ${#missing[@]} -eq 0 ] || apt_install "The browser checks need headless Chromium" "${missing[@]}"
    command -v python3 >/dev/null 2>&1 || { echo "the browser checks need python3 (apt-get install -y python3 python3-pip)" >&2; exit 1; }
    # The kit page's QR code is read back from a screenshot with ZBar (pyzbar loads libzbar0).
    [ -e /usr/lib/x86_64-linux-gnu/libzbar.so.0 ] || ls /usr/lib/*/libzbar.so.0 >/dev/null 2>&1 \
        || apt_install "The kit page's check reads its QR code with ZBar" libzbar0
    if ! python3 -c "import selenium, openapi_spec_validator, jsonschema, pyzbar.pyzbar, PIL" >/dev/null 2>&1; then
        say "installing Selenium and the OpenAPI validator for the browser checks"
        python3 -m pip install -q -r "$ROOT/Tests/Browser/requirements.txt" >/dev/null
    fi
}

# PostgreSQL's server binaries (initdb, pg_ctl, postgres), installed from Debian when missing.
postgres_bin() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}

ensure_postgres() {
    [ -n "$(postgres_bin)" ] && [ -x "$(postgres_bin)/initdb" ] && return 0
    apt_install "The PostgreSQL tests need a PostgreSQL server" postgresql
}

# Starts a throwaway PostgreSQL cluster in a new temporary directory, listening on a free loopback
# port only, and exports EFFERENT_TEST_POSTGRES_URL naming its database `efferent`. The caller
# stops it with stop_postgres (scripts trap it on EXIT). For tests fsync is off, since nothing here
# outlives the run; `start_postgres durable` (the benchmark) keeps it on and only lets commits
# return before their WAL is flushed, as SQLite's WAL with synchronous=NORMAL does.
start_postgres() {
    ensure_postgres
    local bin port run=() durability="-c fsync=off -c synchronous_commit=off"
    [ "${1:-}" = durable ] && durability="-c synchronous_commit=off"
    bin="$(postgres_bin)"
    # Under /tmp when root: the `postgres` user must be able to reach it, which $TMPDIR may not allow.
    local parent="${TMPDIR:-/tmp}"
    [ "$(id -u)" -eq 0 ] && parent=/tmp
    EFFERENT_PG_DIR="$(mktemp -d "$parent/efferent-pg.XXXXXX")"
    export EFFERENT_PG_DIR
    # initdb refuses to run as root; the Debian package's `postgres` user owns the cluster then.
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres "$EFFERENT_PG_DIR"
        run=(runuser -u postgres --)
    fi
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    "${run[@]}" "$bin/initdb" -D "$EFFERENT_PG_DIR/data" -U efferent -A trust -E UTF8 --no-sync >"$EFFERENT_PG_DIR/initdb.log" 2>&1 \
        || { cat "$EFFERENT_PG_DIR/initdb.log" >&2; return 1; }
    "${run[@]}" "$bin/pg_ctl" -D "$EFFERENT_PG_DIR/data" -l "$EFFERENT_PG_DIR/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $EFFERENT_PG_DIR $durability -c max_connections=300" \
        start >/dev/null || { cat "$EFFERENT_PG_DIR/server.log" >&2; return 1; }
    "${run[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U efferent efferent
    export EFFERENT_TEST_POSTGRES_URL="postgresql://efferent@127.0.0.1:$port/efferent"
    export EFFERENT_PG_PORT="$port"
    say "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (throwaway, in $EFFERENT_PG_DIR)"
}

# A new, empty database in the running throwaway cluster; prints its URL.
postgres_database() {
    "$(postgres_bin)/createdb" -h 127.0.0.1 -p "$EFFERENT_PG_PORT" -U efferent "$1"
    echo "postgresql://efferent@127.0.0.1:$EFFERENT_PG_PORT/$1"
}

stop_postgres() {
    [ -n "${EFFERENT_PG_DIR:-}" ] && [ -d "$EFFERENT_PG_DIR/data" ] || return 0
    local run=()
    [ "$(id -u)" -eq 0 ] && run=(runuser -u postgres --)
    "${run[@]}" "$(postgres_bin)/pg_ctl" -D "$EFFERENT_PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$EFFERENT_PG_DIR"
    EFFERENT_PG_DIR=""
}
