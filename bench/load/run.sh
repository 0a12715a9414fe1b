#!/usr/bin/env bash
# Load bench for `skillgate serve` (run by hand, not in CI). See bench/load/README.md.
#
# Throughput: wrk, N connections for D seconds, JSON-RPC SendMessage, every response checked
# (HTTP 200 and TASK_STATE_COMPLETED), against `skillgate serve --store memory|sqlite:|postgres://`
# for the scenarios `describe` (describe_skill of evaluate_resource_condition) and `evaluate`
# (evaluate_resource_condition on `lo`, rx_errors: no sampling window), and optionally the peer:
# the a2a-sdk 1.3.0 server on its PostgreSQL DatabaseTaskStore (scenario `sdk`).
# RSS: VmRSS of the server before, every 10 s during and 10 s after a run of R SendMessage calls.
# Every run gets a fresh server and a fresh store (new SQLite file, new PostgreSQL database).
# Prints Markdown tables on stdout; progress and raw wrk output go to stderr and $BENCH_OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

usage() {
    cat <<'EOF'
usage: bench/load/run.sh [options]
  --mode throughput|rss|all       what to measure             (BENCH_MODE, default all)
  --scenario describe|evaluate|all                            (BENCH_SCENARIO, default all)
  --store memory|sqlite|sqlitenormal|postgres|postgres2|all  comma lists allowed;
                                  sqlitenormal = sqlite:PATH?synchronous=normal (commits
                                  not synced, only checkpoints); postgres2 = two `serve`
                                  replicas on one PostgreSQL database, two wrk processes with
                                  half the connections (and threads) each, one per replica;
                                  throughput only, not in all   (BENCH_STORE, default all)
  --peer LIST                     also load the peers, a comma list of: sdk = a2a-sdk 1.3.0
                                  (Python) on PostgreSQL, sdkmem = the same on its in-memory
                                  store, js = @a2a-js/sdk 1.3.0 (Node, in-memory), or none
                                  (BENCH_PEER, default sdk,sdkmem,js)
  --no-floor                      skip the axum floor (a minimal axum server answering every
                                  POST with a fixed 1.5 KB completed task; by default measured in
                                  every throughput run, and each scenario reported as a fraction)
  --repeat N                      runs per cell, median kept  (BENCH_REPEAT, default 2)
  --duration SECONDS              wrk -d for throughput       (BENCH_DURATION, default 10)
  --connections N                 wrk -c                      (BENCH_CONNECTIONS, default 64)
  --threads N                     wrk -t                      (BENCH_THREADS, default 2)
  --rss-requests N                SendMessage calls per RSS run (BENCH_RSS_REQUESTS, default 100000)
  --serve-args "ARGS"             extra arguments of every `skillgate serve`, e.g. "--metrics"
                                  (BENCH_SERVE_ARGS, default none); RUST_LOG passes through
  --preload LIB                   LD_PRELOAD for the skillgate server only, e.g. Debian's
                                  /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 or libmimalloc.so.2:
                                  compares allocators without a rebuild   (BENCH_PRELOAD)
  --no-build                      use target/release/skillgate as it is
Other environment: BENCH_BIN (the skillgate binary, default target/release/skillgate; with
--no-build, e.g. an older build kept for a before/after comparison), BENCH_PG (default postgres://postgres@127.0.0.1:5432; databases
sgbench_* are created and dropped there), BENCH_VENV (default target/bench-venv),
BENCH_WARMUP seconds (default 2), BENCH_OUT (raw output dir, default target/bench-load/TIME).
EOF
}

MODE=${BENCH_MODE:-all}
SCENARIO=${BENCH_SCENARIO:-all}
STORE=${BENCH_STORE:-all}
PEER=${BENCH_PEER:-sdk,sdkmem,js}
REPEAT=${BENCH_REPEAT:-2}
DURATION=${BENCH_DURATION:-10}
CONNS=${BENCH_CONNECTIONS:-64}
THREADS=${BENCH_THREADS:-2}
RSS_REQUESTS=${BENCH_RSS_REQUESTS:-100000}
WARMUP=${BENCH_WARMUP:-2}
SERVE_ARGS=${BENCH_SERVE_ARGS:-}
PRELOAD=${BENCH_PRELOAD:-}
BUILD=1
FLOOR=1
PG=${BENCH_PG:-postgres://postgres@127.0.0.1:5432}
VENV=${BENCH_VENV:-target/bench-venv}
OUT=${BENCH_OUT:-target/bench-load/$(date -u +%Y%m%dT%H%M%SZ)}

while [ $# -gt 0 ]; do
    case $1 in
        --mode) MODE=$2; shift 2 ;;
        --scenario) SCENARIO=$2; shift 2 ;;
        --store) STORE=$2; shift 2 ;;
        --peer) PEER=$2; shift 2 ;;
        --repeat) REPEAT=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --connections) CONNS=$2; shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --rss-requests) RSS_REQUESTS=$2; shift 2 ;;
        --serve-args) SERVE_ARGS=$2; shift 2 ;;
        --preload) PRELOAD=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --no-floor) FLOOR=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done
if [ "$SCENARIO" = all ]; then SCENARIO=describe,evaluate; fi
if [ "$STORE" = all ]; then STORE=memory,sqlite,postgres; fi
IFS=, read -r -a SCENARIOS <<<"$SCENARIO"
IFS=, read -r -a STORES <<<"$STORE"
mkdir -p "$OUT"
log() { echo "== bench: $*" >&2; }

# --- tools -------------------------------------------------------------------------------
if ! command -v wrk >/dev/null; then
    log "installing wrk"
    apt-get install -y wrk >&2 || { apt-get update >&2 && apt-get install -y wrk >&2; }
fi
if [ "$BUILD" = 1 ]; then
    log "cargo build --release -p skillgate-cli"
    cargo build --release -p skillgate-cli >&2
fi
FLOOR_BIN=$ROOT/target/release/examples/axum_floor
if [ "$FLOOR" = 1 ] && [ "$MODE" != rss ]; then
    log "cargo build --release -p skillgate-server --example axum_floor"
    cargo build --release -p skillgate-server --example axum_floor >&2
fi
BIN=${BENCH_BIN:-$ROOT/target/release/skillgate}
[ -x "$BIN" ] || { echo "run.sh: $BIN missing (build it or drop --no-build)" >&2; exit 2; }
has_peer() { [[ ",$PEER," == *",$1,"* ]]; }
NODE_DIR=$ROOT/target/bench-node
if has_peer js && [ "$MODE" != rss ]; then
    if [ ! -d "$NODE_DIR/node_modules/@a2a-js/sdk" ]; then
        log "npm install into $NODE_DIR"
        mkdir -p "$NODE_DIR"
        cp bench/load/package.json "$NODE_DIR/"
        (cd "$NODE_DIR" && npm install --silent --no-audit --no-fund) >&2
    fi
    cp bench/load/js_peer.mjs "$NODE_DIR/"
fi
if { has_peer sdk || has_peer sdkmem; } && [ "$MODE" != rss ]; then
    if [ ! -x "$VENV/bin/python" ]; then
        log "venv $VENV"
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        -r bench/load/requirements.txt >&2
fi

# --- servers -----------------------------------------------------------------------------
SERVER_PID=""
OTHER_PID=""
URL=""
DBS=()
TMPDIRS=()
cleanup() {
    stop_server || true
    if [ -n "$OTHER_PID" ]; then SERVER_PID=$OTHER_PID; OTHER_PID=""; stop_server || true; fi
    for db in "${DBS[@]}"; do
        psql -q "$PG/postgres" -c "drop database if exists $db" >/dev/null 2>&1 || true
    done
    for d in "${TMPDIRS[@]}"; do rm -rf "$d"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

DB=""
fresh_db() { # sets DB (not in a subshell, so that cleanup knows every database)
    DB="sgbench_$$_${#DBS[@]}"
    psql -q "$PG/postgres" -c "create database $DB" >/dev/null
    DBS+=("$DB")
}

wait_listening() { # $1 stdout file, $2 stderr file
    local i
    for i in $(seq 1 300); do
        # The server's shell may not have created the file yet (set -e must not end here).
        URL=$(sed -n 's/^listening on \(http:[^ ]*\).*/\1/p' "$1" 2>/dev/null | head -1 || true)
        [ -n "$URL" ] && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "run.sh: the server did not start:" >&2
    cat "$2" >&2
    exit 1
}

STORE_DESC=""
start_server() { # $1 memory|sqlite|sqlitenormal|postgres|sdk; sets SERVER_PID, URL, STORE_DESC
    local kind=$1 out err
    out=$OUT/server.$kind.out
    err=$OUT/server.$kind.err
    # Emptied here, not by the server's redirection: the background shell may open them after
    # wait_listening has read the previous run's "listening on" line (seen under load).
    : >"$out"
    : >"$err"
    case $kind in
        memory) STORE_DESC="memory" ;;
        sqlite|sqlitenormal)
            local d; d=$(mktemp -d /tmp/sgbench.XXXXXX); TMPDIRS+=("$d")
            STORE_DESC="sqlite:$d/tasks.db"
            [ "$kind" = sqlite ] || STORE_DESC="$STORE_DESC?synchronous=normal" ;;
        postgres|postgres2) fresh_db; STORE_DESC="$PG/$DB" ;;
        postgres2b) STORE_DESC="$PG/$DB" ;; # the second replica: the same database
        sdk) fresh_db; STORE_DESC="postgresql+asyncpg://${PG#postgres://}/$DB" ;;
        floor|js) STORE_DESC="none" ;;
        sdkmem) STORE_DESC="memory" ;;
    esac
    if [ "$kind" = js ]; then
        node "$NODE_DIR/js_peer.mjs" --listen 127.0.0.1:0 >"$out" 2>"$err" &
    elif [ "$kind" = floor ]; then
        "$FLOOR_BIN" 127.0.0.1:0 >"$out" 2>"$err" &
    elif [ "$kind" = sdk ] || [ "$kind" = sdkmem ]; then
        "$VENV/bin/python" bench/load/sdk_peer.py --db "$STORE_DESC" --listen 127.0.0.1:0 >"$out" 2>"$err" &
    else
        # shellcheck disable=SC2086 # SERVE_ARGS is a list of words
        LD_PRELOAD=$PRELOAD "$BIN" serve --listen 127.0.0.1:0 --store "$STORE_DESC" $SERVE_ARGS >"$out" 2>"$err" &
    fi
    SERVER_PID=$!
    wait_listening "$out" "$err"
}

stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    local i
    for i in $(seq 1 100); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

# The Data Part of a scenario (needs the running server for the interface digest).
data_part() {
    case $1 in
        describe) echo '{"skill":"describe_skill","arguments":{"skill_id":"evaluate_resource_condition"}}' ;;
        evaluate)
            "$BIN" describe "$URL" evaluate_resource_condition --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(json.dumps({
    "skill": d["skill_id"], "skill_version": d["skill_version"],
    "interface_digest": d["interface_digest"],
    "arguments": {"resource_id": "lo",
                  "condition": {"metric": "rx_errors", "operator": "gt", "threshold": 0, "unit": "count"}},
}, separators=(",", ":")))' ;;
        sdk|sdkmem|js|floor) echo '' ;;
    esac
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
hwm_kib() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
field() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$2"; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k/1024}'; }

wrk_run() { # $1 label, $2 data part, $3 duration, [$4 limit, $5 done dir]; prints the BENCH line
    local label=$1 data=$2 dur=$3 limit=${4:-0} done_dir=${5:-}
    BENCH_DATA=$data BENCH_LIMIT=$limit BENCH_THREADS=$THREADS BENCH_DONE_DIR=$done_dir \
        wrk -t"$THREADS" -c"$CONNS" -d"${dur}s" --timeout 10s --latency \
        -s bench/load/sendmessage.lua "$URL/" >"$OUT/wrk.$label.txt" 2>&1
    grep '^BENCH ' "$OUT/wrk.$label.txt" | head -1
    grep '^BENCH_SAMPLE ' "$OUT/wrk.$label.txt" | head -1 >&2 || true
}

TICK=$(getconf CLK_TCK)
THROUGHPUT_ROWS=()
RSS_ROWS=()

# --- throughput --------------------------------------------------------------------------
throughput_cell() { # $1 scenario, $2 store kind
    local scen=$1 kind=$2 r line rpss="" p99s="" p50s="" bad=0 cpus="" loads="" runs_rps="" runs_p99=""
    for r in $(seq 1 "$REPEAT"); do
        start_server "$kind"
        local data; data=$(data_part "$scen")
        if [ "$WARMUP" -gt 0 ]; then wrk_run "$scen.$kind.$r.warmup" "$data" "$WARMUP" >/dev/null; fi
        local la; la=$(loadavg)
        local t0; t0=$(cpu_ticks "$SERVER_PID")
        line=$(wrk_run "$scen.$kind.$r" "$data" "$DURATION")
        local t1; t1=$(cpu_ticks "$SERVER_PID")
        stop_server
        [ -n "$line" ] || { echo "run.sh: wrk printed no result, see $OUT/wrk.$scen.$kind.$r.txt" >&2; exit 1; }
        log "$scen/$kind run $r (load $la): $line"
        local rps p99 p50 secs errs
        rps=$(field rps "$line"); p99=$(field p99_ms "$line"); p50=$(field p50_ms "$line")
        secs=$(field duration_s "$line")
        errs=$(( $(field non200 "$line") + $(field not_completed "$line") + $(field connect_err "$line") \
            + $(field read_err "$line") + $(field write_err "$line") + $(field timeout_err "$line") ))
        bad=$((bad + errs))
        rpss+=" $rps"; p99s+=" $p99"; p50s+=" $p50"
        cpus+=" $(awk -v a="$t0" -v b="$t1" -v t="$TICK" -v s="$secs" 'BEGIN {printf "%.0f", 100*(b-a)/t/s}')"
        runs_rps+="${runs_rps:+ / }$(printf %.0f "$rps")"
        runs_p99+="${runs_p99:+ / }$(printf %.1f "$p99")"
        loads+="${loads:+; }$la"
    done
    local label=$scen
    [ "$kind" = sdk ] && label="trivial task (a2a-sdk peer)"
    [ "$kind" = floor ] && label="axum floor (fixed 1.5 KB answer)"
    [ "$kind" = js ] && label="trivial task (@a2a-js/sdk peer)"
    [ "$kind" = sdkmem ] && label="trivial task (a2a-sdk peer)"
    local store_label=$kind
    [ "$kind" = sdk ] && store_label="a2a-sdk 1.3.0, DatabaseTaskStore on postgres"
    [ "$kind" = floor ] && store_label="none"
    [ "$kind" = js ] && store_label="@a2a-js/sdk 1.3.0, InMemoryTaskStore"
    [ "$kind" = sdkmem ] && store_label="a2a-sdk 1.3.0, InMemoryTaskStore"
    THROUGHPUT_ROWS+=("| $label | $store_label | **$(echo "$rpss" | median | xargs printf %.0f)** | **$(echo "$p99s" | median | xargs printf %.1f)** | $(echo "$p50s" | median | xargs printf %.1f) | $runs_rps | $runs_p99 | $bad | $(echo "$cpus" | median | xargs printf %.0f)% | $loads |")
    echo "$scen $kind $(echo "$rpss" | median) $(echo "$p99s" | median)" >>"$OUT/medians.txt"
}

# Two replicas on one PostgreSQL database (store kind postgres2), the load split over both: two
# wrk processes at once, each with half the connections and threads, one per replica. req/s is
# the sum of the two, p99 and p50 the larger of the two, CPU the sum of both servers.
throughput_two() { # $1 scenario
    local scen=$1 r rpss="" p99s="" p50s="" bad=0 cpus="" loads="" runs_rps="" runs_p99=""
    local half=$((CONNS / 2)) wt=$(( THREADS > 1 ? THREADS / 2 : 1 ))
    for r in $(seq 1 "$REPEAT"); do
        start_server postgres2
        local pid_a=$SERVER_PID url_a=$URL
        OTHER_PID=$pid_a
        start_server postgres2b
        local pid_b=$SERVER_PID url_b=$URL
        local data; data=$(data_part "$scen")
        local label="$scen.postgres2.$r" u i
        # Only the wrk processes are waited for (a bare `wait` would wait for the servers too).
        local wrks=()
        if [ "$WARMUP" -gt 0 ]; then
            for u in "$url_a" "$url_b"; do
                BENCH_DATA=$data BENCH_LIMIT=0 BENCH_THREADS=$wt wrk -t"$wt" -c"$half" -d"${WARMUP}s" \
                    --timeout 10s -s bench/load/sendmessage.lua "$u/" >/dev/null 2>&1 &
                wrks+=($!)
            done
            wait "${wrks[@]}"
            wrks=()
        fi
        local la; la=$(loadavg)
        local t0=$(( $(cpu_ticks "$pid_a") + $(cpu_ticks "$pid_b") ))
        i=0
        for u in "$url_a" "$url_b"; do
            i=$((i + 1))
            BENCH_DATA=$data BENCH_LIMIT=0 BENCH_THREADS=$wt wrk -t"$wt" -c"$half" -d"${DURATION}s" \
                --timeout 10s --latency -s bench/load/sendmessage.lua "$u/" >"$OUT/wrk.$label.$i.txt" 2>&1 &
            wrks+=($!)
        done
        wait "${wrks[@]}"
        local t1=$(( $(cpu_ticks "$pid_a") + $(cpu_ticks "$pid_b") ))
        stop_server
        SERVER_PID=$pid_a; OTHER_PID=""; stop_server
        local la1 lb1
        la1=$(grep '^BENCH ' "$OUT/wrk.$label.1.txt" | head -1)
        lb1=$(grep '^BENCH ' "$OUT/wrk.$label.2.txt" | head -1)
        [ -n "$la1" ] && [ -n "$lb1" ] || { echo "run.sh: wrk printed no result, see $OUT/wrk.$label.*.txt" >&2; exit 1; }
        log "$scen/postgres2 run $r (load $la): replica 1: $la1; replica 2: $lb1"
        local rps p99 p50 secs errs=0 line
        rps=$(awk -v a="$(field rps "$la1")" -v b="$(field rps "$lb1")" 'BEGIN {print a + b}')
        p99=$(printf '%s\n%s\n' "$(field p99_ms "$la1")" "$(field p99_ms "$lb1")" | sort -g | tail -1)
        p50=$(printf '%s\n%s\n' "$(field p50_ms "$la1")" "$(field p50_ms "$lb1")" | sort -g | tail -1)
        secs=$(field duration_s "$la1")
        for line in "$la1" "$lb1"; do
            errs=$(( errs + $(field non200 "$line") + $(field not_completed "$line") + $(field connect_err "$line") \
                + $(field read_err "$line") + $(field write_err "$line") + $(field timeout_err "$line") ))
        done
        bad=$((bad + errs))
        rpss+=" $rps"; p99s+=" $p99"; p50s+=" $p50"
        cpus+=" $(awk -v a="$t0" -v b="$t1" -v t="$TICK" -v s="$secs" 'BEGIN {printf "%.0f", 100*(b-a)/t/s}')"
        runs_rps+="${runs_rps:+ / }$(printf %.0f "$rps")"
        runs_p99+="${runs_p99:+ / }$(printf %.1f "$p99")"
        loads+="${loads:+; }$la"
    done
    THROUGHPUT_ROWS+=("| $scen | postgres, two replicas | **$(echo "$rpss" | median | xargs printf %.0f)** | **$(echo "$p99s" | median | xargs printf %.1f)** | $(echo "$p50s" | median | xargs printf %.1f) | $runs_rps | $runs_p99 | $bad | $(echo "$cpus" | median | xargs printf %.0f)% | $loads |")
    echo "$scen postgres2 $(echo "$rpss" | median) $(echo "$p99s" | median)" >>"$OUT/medians.txt"
}

# --- RSS ---------------------------------------------------------------------------------
rss_cell() { # $1 scenario, $2 store kind
    local scen=$1 kind=$2 r
    for r in $(seq 1 "$REPEAT"); do
        start_server "$kind"
        local data; data=$(data_part "$scen")
        sleep 2
        local la; la=$(loadavg)
        local before; before=$(rss_kib "$SERVER_PID")
        local done_dir; done_dir=$(mktemp -d /tmp/sgbench-done.XXXXXX); TMPDIRS+=("$done_dir")
        BENCH_DATA=$data BENCH_LIMIT=$RSS_REQUESTS BENCH_THREADS=$THREADS BENCH_DONE_DIR=$done_dir \
            wrk -t"$THREADS" -c"$CONNS" -d3600s --timeout 10s \
            -s bench/load/sendmessage.lua "$URL/" >"$OUT/wrk.rss.$scen.$kind.$r.txt" 2>&1 &
        local wpid=$! t=0 samples="" max=$before
        while kill -0 "$wpid" 2>/dev/null; do
            sleep 1; t=$((t + 1))
            if [ $((t % 10)) -eq 0 ]; then
                local s; s=$(rss_kib "$SERVER_PID")
                samples+="${samples:+ }$(mib "$s")"
                if [ "$s" -gt "$max" ]; then max=$s; fi
            fi
            if [ "$(find "$done_dir" -name 'done.*' | wc -l)" -ge "$THREADS" ]; then
                kill -INT "$wpid" 2>/dev/null || true
            fi
        done
        wait "$wpid" || true
        sleep 10
        local after hwm; after=$(rss_kib "$SERVER_PID"); hwm=$(hwm_kib "$SERVER_PID")
        stop_server
        local line; line=$(grep '^BENCH ' "$OUT/wrk.rss.$scen.$kind.$r.txt" | head -1)
        log "rss $scen/$kind run $r (load $la): before $(mib "$before") MiB, during [$samples], after $(mib "$after"), VmHWM $(mib "$hwm"); $line"
        local errs
        errs=$(( $(field non200 "$line") + $(field not_completed "$line") + $(field connect_err "$line") \
            + $(field read_err "$line") + $(field write_err "$line") + $(field timeout_err "$line") ))
        local during
        # A run shorter than 10 s has no sample: grep then matches nothing (not an error).
        during=$(tr ' ' '\n' <<<"$samples" | { grep -v '^$' || true; } | sort -g \
            | awk '{a[NR]=$1} END {if (NR==0) print "-"; else if (NR==1) print a[1]; else printf "%s-%s (%d samples)", a[1], a[NR], NR}')
        RSS_ROWS+=("| $scen | $kind | $r | $(field requests "$line") | $(printf %.0f "$(field duration_s "$line")") | $(mib "$before") | $during | $(mib "$max") | $(mib "$after") | $(mib "$hwm") | $errs | $la |")
    done
}

log "output in $OUT; load average now $(loadavg)"
if [ "$MODE" = throughput ] || [ "$MODE" = all ]; then
    for scen in "${SCENARIOS[@]}"; do
        for kind in "${STORES[@]}"; do
            if [ "$kind" = postgres2 ]; then throughput_two "$scen"; else throughput_cell "$scen" "$kind"; fi
        done
    done
    if has_peer sdk; then throughput_cell sdk sdk; fi
    if has_peer sdkmem; then throughput_cell sdkmem sdkmem; fi
    if has_peer js; then throughput_cell js js; fi
    if [ "$FLOOR" = 1 ]; then throughput_cell floor floor; fi
fi
if [ "$MODE" = rss ] || [ "$MODE" = all ]; then
    for scen in "${SCENARIOS[@]}"; do
        for kind in "${STORES[@]}"; do
            if [ "$kind" != postgres2 ]; then rss_cell "$scen" "$kind"; fi
        done
    done
fi

# --- report ------------------------------------------------------------------------------
echo
echo "wrk -t$THREADS -c$CONNS; $(nproc) cores; $(uname -sr); skillgate $(git rev-parse --short HEAD); serve args: ${SERVE_ARGS:-none}; preload: ${PRELOAD:-none}; RUST_LOG=${RUST_LOG:-unset}"
if [ ${#THROUGHPUT_ROWS[@]} -gt 0 ]; then
    echo
    echo "SendMessage, ${DURATION} s per run after ${WARMUP} s warm-up, median of $REPEAT runs:"
    echo
    echo "| scenario | store | req/s | p99 ms | p50 ms | req/s per run | p99 ms per run | bad responses | server CPU | load average at each run |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${THROUGHPUT_ROWS[@]}"
    if [ -s "$OUT/medians.txt" ]; then
        echo
        awk '$1 == "sdk" {sr = $3; sp = $4} $1 == "floor" {fr = $3} $1 == "js" {jr = $3; jp = $4} $1 == "sdkmem" {mr = $3; mp = $4}
             $1 != "sdk" && $1 != "floor" && $1 != "js" && $1 != "sdkmem" {r[$1" "$2] = $3; p[$1" "$2] = $4}
             END {
               for (k in r) {
                 split(k, a, " ");
                 if (fr > 0)
                   printf "- %s, %s store: %.0f%% of the axum floor (%.0f of %.0f req/s)\n", a[1], a[2], 100*r[k]/fr, r[k], fr;
                 if (a[2] == "memory" && jr > 0)
                   printf "- %s, skillgate+memory vs @a2a-js/sdk: %.1fx the requests/s (target >= 5x), p99 %.3f of its\n", a[1], r[k]/jr, p[k]/jp;
                 if (a[2] == "memory" && mr > 0)
                   printf "- %s, skillgate+memory vs a2a-sdk (1 worker, in-memory store): %.1fx the requests/s (target >= 30x), p99 %.3f of its\n", a[1], r[k]/mr, p[k]/mp;
                 if (a[2] == "postgres" && sr > 0)
                   printf "- %s, skillgate+postgres vs a2a-sdk: %.1fx the requests/s (target >= 10x), p99 %.3f of the SDK'"'"'s (target <= 0.1)\n", a[1], r[k]/sr, p[k]/sp;
                 if (a[2] == "postgres2" && ((a[1]" postgres") in r))
                   printf "- %s, two postgres replicas vs one: %.0f%% of the requests/s (target >= 100%%)\n", a[1], 100*r[k]/r[a[1]" postgres"];
                 if (a[2] == "postgres" && ((a[1]" memory") in r))
                   printf "- %s, postgres (one replica) vs memory: %.0f%% of the requests/s (target >= 30%%)\n", a[1], 100*r[k]/r[a[1]" memory"];
                 if (a[2] == "sqlite" && ((a[1]" memory") in r))
                   printf "- %s, sqlite vs memory: %.0f%% of the requests/s (target >= 50%%)\n", a[1], 100*r[k]/r[a[1]" memory"];
               }
             }' "$OUT/medians.txt" | sort
    fi
fi
if [ ${#RSS_ROWS[@]} -gt 0 ]; then
    echo
    echo "VmRSS of the server over $RSS_REQUESTS SendMessage calls (MiB; during = range of the samples taken every 10 s; after = 10 s after the load; all samples on stderr):"
    echo
    echo "| scenario | store | run | responses | s | before | during | max sampled | after | VmHWM | bad responses | load average |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${RSS_ROWS[@]}"
fi
