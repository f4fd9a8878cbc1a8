#!/usr/bin/env bash
# The GPU checks of tcfuzz on a machine with an NVIDIA GPU and a CUDA toolkit (ptxas), each step
# bounded in time, everything written under OUTDIR (a log and one JSON file per step):
#
#   gpu/hardware-check.sh TCFUZZ OUTDIR [SCALE]
#
# 1. the GPU and the toolkit as the machine reports them, and `tcfuzz gpu info --json`;
# 2. a smoke run: MP on the GPU, 20 launches without stress;
# 3. `tcfuzz gpu bench --json`: MP, SB, LB, IRIW, 2+2W, the mbarrier and bulk-copy producer /
#    consumer and the release/acquire controls, without stress, stressed and tuned;
# 4. `tcfuzz gpu run --json` on every PTX and mbarrier example (tcgen05 ones need sm_100), and on
#    every Tile IR example (compiled by `tileiras`, which must be installed: TCFUZZ_CUDA_BIN);
# 5. the mixed-scope mbarrier examples, long and tuned (a lost arrival shows as unfinished
#    instances; the .cta-wait race's stale read is rare: 13 in 13.3 M on an H200);
# 6. generated Tile IR programs under stress (`generate --seed 3`: the run that found two
#    threads of one tile block run apart);
# 7. a `tcfuzz fuzz --gpu` campaign of one minute; a GPU failure's program is in the log
#    ("the GPU oracle failed", then the program's text);
# 8. where the toolkit has compute-sanitizer: memcheck over generated pattern, mutant and random
#    programs (one stressed launch each; 0 errors on an H200 in the 575 of 1,005 such programs that
#    could run), and synccheck over the mbarrier examples and generated sync programs, each in a
#    process of its own (a JSON line per program with its exit status, 99 where synccheck
#    reported something; reports in OUTDIR/synccheck/NAME.log). An mbarrier phase that no thread
#    waits for is reported as "Missing wait", which PTX allows (2 of the 117 programs on an H200,
#    2026-11-28). "Divergent thread(s) in block" on cluster barriers was a kernel bug: see
#    `cluster_kernel` in gpu/src/emit/mod.rs.
#
# SCALE (default 1) multiplies the launches of steps 3 to 6 (100: 10,000 launches per bench row;
# steps 1 to 4 and 7 took about 5 minutes in all on an H200, steps 5 and 6 are bounded by 2 more).
# TCFUZZ_CHECK_BUDGET (seconds, default 900) bounds the whole script: a step's limit is cut to
# what is left of it, and a step with under 10 s left is skipped (logged), so that a machine lent
# for a fixed time still returns every file written. A step that fails or runs out of time is
# logged and the next one runs. The fuzz step keeps its corpus under OUTDIR/fuzz-corpus.
# TCFUZZ_CHECK_STEPS (names separated by spaces, e.g. "synccheck memcheck fuzz") runs only those
# steps, for a lease too short for all of them (the names are those of the log's ==> lines).
# Exit status: 7 when some step reported a state the model forbids, else 0.
set -u
bin=$1
out=$2
scale=${3:-1}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
log="$out/log.txt"
forbidden=0
budget=${TCFUZZ_CHECK_BUDGET:-900}
only=${TCFUZZ_CHECK_STEPS:-}

# The toolkit's ptxas, where the machine has one beside nvcc.
if [ -z "${TCFUZZ_CUDA_BIN:-}" ]; then
    for d in /usr/local/cuda/bin "$(dirname "$(command -v nvcc 2>/dev/null || echo /nonexistent/nvcc)")"; do
        if [ -x "$d/ptxas" ]; then export TCFUZZ_CUDA_BIN=$d; break; fi
    done
fi

# step NAME LIMIT_S COMMAND...: stdout to NAME.json (or the log), stderr to the log.
step() {
    local name=$1 limit=$2
    shift 2
    if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then
        printf '\n==> %s: not in TCFUZZ_CHECK_STEPS\n' "$name" >>"$log"
        return 0
    fi
    local left=$((budget - SECONDS))
    if [ "$left" -lt 10 ]; then
        printf '\n==> %s: skipped, %ss of the %ss budget left\n' "$name" "$left" "$budget" | tee -a "$log"
        return 0
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    printf '\n==> %s (limit %ss, at %ss): %s\n' "$name" "$limit" "$SECONDS" "$*" | tee -a "$log"
    local start=$SECONDS rc=0
    timeout -k 5 "$limit" "$@" >"$out/$name.json" 2>>"$log" || rc=$?
    printf '<== %s: exit %s after %ss\n' "$name" "$rc" "$((SECONDS - start))" | tee -a "$log"
    tail -c 4000 "$out/$name.json" >>"$log"
    [ "$rc" -eq 7 ] && forbidden=1
    return 0
}

{
    echo "tcfuzz hardware check, $(date -u +%FT%TZ), scale $scale"
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>&1
    echo "ptxas: ${TCFUZZ_CUDA_BIN:-none}/ptxas"
    "${TCFUZZ_CUDA_BIN:-/nonexistent}/ptxas" --version 2>&1 | tail -1
    "$bin" --version
} >>"$log" 2>&1

cd "$here"
step info 30 "$bin" gpu info --json
step smoke 45 "$bin" -vv gpu run examples/ptx/MP+relaxed-gpu-diffcta.litmus --iterations 20 --stress off --json
step bench 180 "$bin" gpu bench --iterations $((100 * scale)) --json
step examples 150 "$bin" gpu run examples/ptx examples/mbarrier --iterations $((40 * scale)) --stress tune --json
step tileir 60 "$bin" gpu run examples/tileir --iterations $((20 * scale)) --json
step mbarrier-scopes 120 "$bin" gpu run examples/mbarrier/mbarrier-remote-and-local-arrival-count2.litmus \
    examples/mbarrier/mbarrier-remote-arrive-cta-wait-race.litmus examples/mbarrier/mbarrier-remote-arrive-cluster-wait.litmus \
    --iterations $((200 * scale)) --stress tune --json
generated=$(mktemp -d)
"$bin" generate --seed 3 --count 700 --family random --out "$generated/all" -q
mkdir -p "$generated/tileir"
for f in "$generated"/all/*.litmus; do
    if head -1 "$f" | grep -q "random tileir"; then cp "$f" "$generated/tileir/"; fi
done
step tileir-generated 90 "$bin" gpu run "$generated/tileir" --iterations $((5 * scale)) --stress tune --json
step fuzz 90 "$bin" -vv fuzz --gpu --corpus "$out/fuzz-corpus" --seed 5 --duration 60s --gpu-iterations 20 --json
grep -A 30 "GPU oracle failed" "$log" | head -n 200 >"$out/gpu-oracle-failures.txt" || true
sanitizer=${TCFUZZ_CUDA_BIN:-/usr/local/cuda/bin}/compute-sanitizer
[ -x "$sanitizer" ] || sanitizer=/usr/local/cuda/bin/compute-sanitizer
if [ -x "$sanitizer" ]; then
    for family in pattern mutant random; do
        "$bin" generate --seed 31 --count 300 --family "$family" --out "$generated/sanitize-$family" -q
    done
    step memcheck 150 "$sanitizer" --tool memcheck --print-limit 30 --error-exitcode 99 --log-file "$out/memcheck.sanitizer.log" \
        "$bin" gpu run "$generated"/sanitize-* --iterations 1 --stress on --json
    mkdir -p "$generated/sync"
    for f in "$generated"/all/*.litmus; do
        if head -1 "$f" | grep -q "random sync"; then cp "$f" "$generated/sync/"; fi
    done
    # One sanitizer process per program: the tool can end a kernel at its first report, and one
    # program's report must not hide the next one's. A JSON line per program: its exit status
    # (99: synccheck reported something, in OUTDIR/synccheck/NAME.log).
    mkdir -p "$out/synccheck"
    step synccheck 150 bash -c 'sanitizer=$1 bin=$2 logs=$3; shift 3
        for f in "$@"; do
            name=$(basename "$f" .litmus) rc=0
            timeout -k 5 30 "$sanitizer" --tool synccheck --print-limit 10 --error-exitcode 99 --log-file "$logs/$name.log" \
                "$bin" gpu run "$f" --iterations 1 --stress off --json >/dev/null 2>&1 || rc=$?
            printf "{\"program\":\"%s\",\"exit\":%s}\n" "$f" "$rc"
        done' synccheck "$sanitizer" "$bin" "$out/synccheck" examples/mbarrier/*.litmus "$generated"/sync/*.litmus
else
    echo "no compute-sanitizer (looked in ${TCFUZZ_CUDA_BIN:-/usr/local/cuda/bin}): steps memcheck and synccheck skipped" | tee -a "$log"
fi
echo "done at ${SECONDS}s" | tee -a "$log"
[ "$forbidden" -eq 0 ] || exit 7
