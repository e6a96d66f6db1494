#!/usr/bin/env bash
# Progress on stderr (src/tool/progress.c) as the commands print it (run from
# tests/ as `bash progress.test.sh /path/to/zkpipe`):
#  - under a pseudo-terminal (script -qc), setup, witness, import (a .params
#    and a .zkey) and prove redraw
#    one line in place: carriage returns, a bar, erase-to-end-of-line, and
#    the step's last line with "took";
#  - without one (stderr a file), plain lines: no carriage return and no
#    escape sequence, the step's "done" line with its count and time;
#  - with --quiet, neither, on a terminal or not; the command's own
#    output (stdout) is the same as without it, times aside.
# Exit 77 (skipped) when script (bsdutils) is missing.
set -u
Z=${1:?usage: progress.test.sh /path/to/zkpipe}
case $Z in /*) ;; *) Z=$PWD/$Z ;; esac
command -v script >/dev/null 2>&1 || { echo "script (bsdutils) not found: skipped"; exit 77; }

T=$(mktemp -d /tmp/zp_progress_XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 2
export ZKPIPE_CACHE=off
passes=0
fails=0
ok() { echo "ok   $1"; passes=$((passes + 1)); }
bad() {
  echo "FAIL $1"
  [ -s "$2" ] && od -c "$2" | tail -n 12 | sed 's/^/       | /'
  fails=$((fails + 1))
}
# on_tty OUT CMD...: runs CMD with its stdin, stdout and stderr on a
# pseudo-terminal, whose output lands in OUT.
on_tty() {
  local out=$1
  shift
  script -qec "$(printf '%q ' "$@")" /dev/null </dev/null >"$out" 2>&1
}
esc=$(printf '\033')
cr=$(printf '\r')
tty_bar() { # FILE STEP: a redrawn bar of STEP that ends with "took"
  grep -q "$cr$2 \[[#.]*\] " "$1" && grep -q "$esc\[K" "$1" &&
    grep -q "$2 \[#*\] 100% .*took [0-9.:]* s\?" "$1"
}
plain() { # FILE STEP: plain lines of STEP, its "done" line, no \r nor escapes
  grep -q "^$2: done, [0-9.kM]* in [0-9.:]* s\? (" "$1" && ! grep -q "$cr" "$1" &&
    ! grep -q "$esc" "$1"
}
silent() { # FILE STEP: no progress of STEP at all
  ! grep -q "$2" "$1" && ! grep -q "$esc\[K" "$1"
}
# each NAME STEP ARGS...: the command ARGS on a terminal, to a file, and
# both again with --quiet.
each() {
  local name=$1 step=$2
  shift 2
  on_tty "$name.tty" "$Z" "$@"
  if tty_bar "$name.tty" "$step"; then ok "$name: a bar on a terminal"
  else bad "$name: a bar on a terminal" "$name.tty"; fi
  "$Z" "$@" >"$name.out" 2>"$name.err"
  if plain "$name.err" "$step"; then ok "$name: plain lines elsewhere"
  else bad "$name: plain lines elsewhere" "$name.err"; fi
  on_tty "$name.qtty" "$Z" "$@" --quiet
  if silent "$name.qtty" "$step"; then ok "$name --quiet: nothing on a terminal"
  else bad "$name --quiet: nothing on a terminal" "$name.qtty"; fi
  "$Z" "$@" --quiet >"$name.qout" 2>"$name.qerr"
  if silent "$name.qerr" "$step"; then ok "$name --quiet: nothing elsewhere"
  else bad "$name --quiet: nothing elsewhere" "$name.qerr"; fi
  # (times aside)
  if diff <(sed 's/[0-9.]* s\b/N s/g' "$name.out") <(sed 's/[0-9.]* s\b/N s/g' "$name.qout") \
     >/dev/null; then ok "$name --quiet: the same output"
  else bad "$name --quiet: the same output" "$name.qout"; fi
}

each setup "making key points" setup synth:porep:10 --convention bellperson --zpk k.zpk \
  --params k.params --vk-json vk.json
each witness "generating witness" witness synth:porep:16 w.wtns
each import "checking G1 points" import --circuit synth:porep:10 k.params i.zpk
"$Z" setup synth:porep:10 z.zkey zvk.json --quiet >/dev/null 2>&1
each import_zkey "checking key points" import z.zkey z.zpk
each prove "generating witness" prove --circuit synth:porep:10 --key k.zpk --seed 3 \
  proof.json public.json
# bench batch: its key's setup (the engine's key progress); its figures
# differ run to run, so only the progress is compared.
B=(bench batch --circuit synth:porep:12 --count 1 --concurrency 1 --partitions 1)
on_tty bench.tty "$Z" "${B[@]}"
if tty_bar bench.tty "making key points"; then ok "bench batch: a bar on a terminal"
else bad "bench batch: a bar on a terminal" bench.tty; fi
"$Z" "${B[@]}" >bench.out 2>bench.err
if plain bench.err "making key points" && grep -q "^wall " bench.out; then
  ok "bench batch: plain lines elsewhere"
else bad "bench batch: plain lines elsewhere" bench.err; fi
"$Z" "${B[@]}" --quiet >bench.qout 2>bench.qerr
if silent bench.qerr "making key points" && grep -q "^wall " bench.qout; then
  ok "bench batch --quiet: nothing"
else bad "bench batch --quiet: nothing" bench.qerr; fi
if plain prove.err "checking key checksums" && silent prove.qerr "checking key checksums"; then
  ok "prove: the key's checksums, not with --quiet"
else bad "prove: the key's checksums, not with --quiet" prove.err; fi
# --quiet is an option like the others: anywhere among them.
"$Z" witness --quiet synth:porep:8 w8.wtns 2>q.err
if [ $? = 0 ] && silent q.err "generating witness"; then ok "--quiet before the arguments"
else bad "--quiet before the arguments" q.err; fi

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
