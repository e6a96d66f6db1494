#!/usr/bin/env bash
# The config file of 'zkpipe serve' (src/cli/config.c, src/cli/serve.c):
#  - a good file: --print-config prints the expected settings, and its
#    output read back as a config file prints the same settings again;
#  - every malformed entry kind exits 2 with FILE:LINE: reason;
#  - flags override the file, and --key flags replace the file's keys;
#  - a missing --config file, a folder, /dev/zero and a too-long line exit 2
#    naming the file;
#  - a token in a file others may read draws a warning, in a 0600 one not;
#  - packaging/zkpipe.conf sets nothing, and its commented values are the
#    defaults;
#  - a daemon started from a config file on a unix socket answers
#    'zkpipe status'; SIGHUP adds a new key, reports a changed limit as
#    needing a restart, leaves all as it was on a bad file, and keeps a
#    removed key; SIGTERM stops it with status 0.
# Needs only bash, coreutils and the zkpipe binary; every daemon started here
# is killed on exit and every wait is bounded.
#
# usage: bash config.test.sh /path/to/zkpipe   (from tests/; exit 77: skipped)
set -u
Z=${1:?usage: config.test.sh /path/to/zkpipe}
case $Z in /*) ;; *) Z=$PWD/$Z ;; esac
cd "$(dirname "$0")"

if "$Z" serve --no-config 2>&1 | grep -q "no daemon"; then
  echo "this zkpipe was built without the daemon (libmicrohttpd, cJSON): skipped"
  exit 77
fi

T=$(mktemp -d /tmp/zp_config_test.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

passes=0
fails=0
ok() { echo "ok   $1"; passes=$((passes + 1)); }
bad() {
  echo "FAIL $1" >&2
  [ -s "$T/out" ] && sed 's/^/       | /' "$T/out" | tail -n 8 >&2
  fails=$((fails + 1))
}
check() { # name command...
  local name=$1
  shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}
# refuse PATTERN LABEL ARGS...: 'zkpipe serve ARGS' exits 2 and says PATTERN.
refuse() {
  local pat=$1 label=$2
  shift 2
  "$Z" serve "$@" >"$T/out" 2>&1
  local rc=$?
  if [ "$rc" = 2 ] && grep -Fq -- "$pat" "$T/out"; then ok "$label"
  else bad "$label (exit $rc, wanted 2 and '$pat')"; fi
}

# ------------------------------------------------------------ a good file
cat >"$T/good.conf" <<CONF
# The daemon of this test.

listen = unix://$T/d.sock
key = syn=synth:porep:8
	key = two=synth:porep:9
workers = 1
max-body = 65536
max-json = "4K"
max-conns = 32
reserved-conns = 4
grace = 2.5
lazy-keys = yes
CONF
cat >"$T/want" <<WANT
# zkpipe serve: effective settings (config file: $T/good.conf)
listen = unix://$T/d.sock
key = syn=synth:porep:8
key = two=synth:porep:9
# token = (none)
workers = 1
threads = 0
gpus = none
slots = 2
# gpu-mem = (default: free memory less a reserve)
# pinned-keys = (default: none)
# synth-witnesses = (default: 0, each made per partition)
max-queued = 1024
# key-budget = (default: no limit)
max-body = 64K
max-json = 4K
max-conns = 32
reserved-conns = 4
max-conns-per-peer = 16
header-timeout = 10
idle-timeout = 120
# body-budget = (default: max(1G, max-body))
max-wait = 600
grace = 2.5
# state-dir = (none: jobs live in memory only)
lazy-keys = yes
allow-witness-path = no
timeline = no
WANT
"$Z" serve --print-config --config "$T/good.conf" >"$T/got" 2>"$T/out"
check "--print-config exits 0 on a good file" test $? = 0
check "--print-config prints the expected settings" diff -u "$T/want" "$T/got"
check "--print-config writes nothing to stderr" test ! -s "$T/out"
# The printed settings, read back, give the same settings.
"$Z" serve --print-config --config "$T/got" >"$T/again" 2>"$T/out"
check "the printed settings read back print the same" \
  diff <(tail -n +2 "$T/got") <(tail -n +2 "$T/again")

# ------------------------------------------------------ flags override it
"$Z" serve --print-config --config "$T/good.conf" --max-body 1M --workers 3 --lazy-keys \
  --key only=synth:porep:10 >"$T/got" 2>"$T/out"
check "flags: exit 0" test $? = 0
check "a flag overrides the file's value" grep -qx 'max-body = 1M' "$T/got"
check "another flag overrides another value" grep -qx 'workers = 3' "$T/got"
"$Z" serve --print-config --config "$T/good.conf" --synth-witnesses 2 >"$T/sw" 2>"$T/swerr"
check "--synth-witnesses sets the engine's witness cache" grep -qx 'synth-witnesses = 2' "$T/sw"
"$Z" serve --print-config --config "$T/good.conf" --synth-witnesses 17 >"$T/sw" 2>"$T/swerr"
check "--synth-witnesses 17: exit 2" test $? = 2
check "--synth-witnesses 17: the message names it" grep -q 'synth-witnesses wants 0..16' "$T/swerr"
check "the file's other values stay" grep -qx 'max-json = 4K' "$T/got"
check "--key flags replace the file's keys" \
  test "$(grep '^key = ' "$T/got")" = "key = only=synth:porep:10"
check "flags alone, without a file (--no-config)" \
  sh -c "\"$Z\" serve --no-config --print-config --listen unix://$T/x.sock --key a=synth:porep:8 | grep -q 'config file: none'"

# The packaged default file: as shipped it sets nothing, and its commented
# values, uncommented, are the daemon's defaults.
PKG=../packaging/zkpipe.conf
if [ -f "$PKG" ]; then
  "$Z" serve --print-config --config "$PKG" --listen "unix://$T/x.sock" --key a=synth:porep:8 \
    2>"$T/out" | tail -n +2 >"$T/pkg"
  "$Z" serve --print-config --no-config --listen "unix://$T/x.sock" --key a=synth:porep:8 \
    | tail -n +2 >"$T/none"
  check "the packaged config file sets nothing" diff "$T/none" "$T/pkg"
  # Uncomment the settings with plain values (not the examples of keys,
  # listen, token and tune, nor the "(default: ...)" ones).
  sed -n 's/^# \([a-z-]* = [^(]*\)$/\1/p' "$PKG" |
    grep -Ev '^(listen|key|token|token-file|tune) ' >"$T/pkg.conf"
  "$Z" serve --print-config --config "$T/pkg.conf" --listen "unix://$T/x.sock" \
    --key a=synth:porep:8 2>"$T/out" | tail -n +2 >"$T/pkg"
  check "the packaged file's commented values are the defaults" diff "$T/none" "$T/pkg"
  check "the packaged file has them all ($(wc -l <"$T/pkg.conf"))" test "$(wc -l <"$T/pkg.conf")" -ge 15
fi

# ----------------------------------------------------- malformed entries
n=0
malformed() { # pattern label line
  n=$((n + 1))
  printf 'listen = unix://%s/m.sock\nkey = a=synth:porep:8\n\n%s\n' "$T" "$3" >"$T/m$n.conf"
  refuse "$T/m$n.conf:4: $1" "$2" --print-config --config "$T/m$n.conf"
}
malformed "missing '='" "a line without '='" "gpus all"
malformed "unknown setting 'colour'" "an unknown setting" "colour = blue"
malformed "bad value for gpus: " "a bad number" "gpus = two"
malformed "bad value for max-body: " "a bad size" "max-body = 0"
malformed "bad value for key: " "a key without NAME=" "key = porep.zpk"
malformed "bad value for lazy-keys: " "a bad switch" "lazy-keys = maybe"
malformed "bad value for header-timeout: " "a bad duration" "header-timeout = 0"
malformed "bad value for tune" "a bad tuning" "tune = nosuch=1"
malformed "bad value for token-file" "an unreadable token file" "token-file = $T/absent-token"
malformed "no value after '='" "an empty value" "grace ="
malformed "no setting name" "no name" "= 3"
malformed "a setting name is lower-case letters" "a bad name" "Max-Conns = 3"
malformed "a quote that is not closed" "an open quote" 'token = "abc'
malformed "text after the closing quote" "text after a quote" 'token = "abc" d'
malformed "a control character" "a control character" $'grace = 1\x01'
malformed "'config' is a command-line option only" "config inside a config" "config = /x"
malformed "'print-config' is a command-line option only" "print-config inside a config" \
  "print-config = yes"
printf 'listen = x\n%*s\n' 5000 "" | tr ' ' a >"$T/long.conf"
refuse "$T/long.conf:2: a line longer than 4096 bytes" "a too-long line" --config "$T/long.conf"
printf 'listen = x\ngrace = 1\0\n' >"$T/nul.conf"
refuse "$T/nul.conf:2: a NUL byte" "a NUL byte" --config "$T/nul.conf"
# The daemon does not start either: the same errors without --print-config.
refuse "$T/m1.conf:4: missing '='" "a malformed file stops the daemon" --config "$T/m1.conf"

# ----------------------------------------------------------- the file itself
refuse "$T/absent.conf" "a missing --config file is named" --config "$T/absent.conf"
refuse "$T" "a folder as --config" --config "$T"
refuse "/dev/zero" "/dev/zero as --config" --config /dev/zero
refuse "missing value after --config" "--config without a file" --print-config --config
refuse "--config and --no-config" "--config with --no-config" --config "$T/good.conf" --no-config
printf 'key = a=synth:porep:8\n' >"$T/nolisten.conf"
refuse "--listen is required" "a file without listen" --config "$T/nolisten.conf"

# ------------------------------------------------------------- a token
printf 'listen = unix://%s/t.sock\nkey = a=synth:porep:8\ntoken = "%s"\n' "$T" \
  0123456789abcdef0123 >"$T/token.conf"
chmod 644 "$T/token.conf"
"$Z" serve --print-config --config "$T/token.conf" >"$T/got" 2>"$T/out"
check "a token in a 0644 file draws a warning" grep -q "has mode 0644 and holds a token" "$T/out"
check "the token is redacted" sh -c "grep -qx '# token = <set> (redacted)' '$T/got' && ! grep -q 0123456789abcdef '$T/got'"
chmod 600 "$T/token.conf"
"$Z" serve --print-config --config "$T/token.conf" >"$T/got" 2>"$T/out"
check "a token in a 0600 file draws none" test ! -s "$T/out"
printf '%s\n' fedcba9876543210fedc >"$T/tok"
chmod 600 "$T/tok"
"$Z" serve --print-config --config "$T/token.conf" --token-file "$T/tok" >"$T/got" 2>"$T/out"
check "--token-file overrides the file's token" grep -qx "token-file = $T/tok" "$T/got"
printf 'listen = tcp://127.0.0.1:0\nkey = a=synth:porep:8\n' >"$T/tcp.conf"
refuse "refusing to listen on TCP" "TCP without a token from a file" --config "$T/tcp.conf"

# --------------------------------------------------- a daemon from a file
if "$Z" request --addr unix:///nonexistent GET / 2>&1 | grep -q "without libcurl"; then
  echo "this zkpipe was built without libcurl: the daemon part is skipped"
else
  "$Z" serve --config "$T/good.conf" >"$T/d.log" 2>&1 &
  D=$!
  PIDS+=("$D")
  for i in $(seq 1 300); do
    grep -q "serve.start" "$T/d.log" && break
    kill -0 "$D" 2>/dev/null || break
    sleep 0.1
  done
  check "a daemon starts from a config file" grep -q "serve.start.*listen=unix://$T/d.sock" "$T/d.log"
  "$Z" status --addr "unix://$T/d.sock" >"$T/out" 2>&1
  check "it answers zkpipe status with the file's keys" \
    sh -c "grep -q syn '$T/out' && grep -q two '$T/out'"
  # SIGHUP: a new key is added, a changed limit is reported as needing a
  # restart, a bad file changes nothing.
  hup() { # waits for the Nth "SIGHUP: done" or "nothing changed" line
    kill -HUP "$D"
    for i in $(seq 1 100); do
      [ "$(grep -cE 'SIGHUP: (done|the settings above)' "$T/d.log")" -ge "$1" ] && return 0
      sleep 0.1
    done
    return 1
  }
  cp "$T/good.conf" "$T/good.orig"
  sed -i 's/^max-conns = 32$/max-conns = 40/' "$T/good.conf"
  echo "key = three=synth:porep:8" >>"$T/good.conf"
  check "SIGHUP reloads" hup 1
  check "SIGHUP adds a new key" grep -q "SIGHUP: key three=synth:porep:8 added" "$T/d.log"
  check "SIGHUP reports a changed limit as needing a restart" \
    grep -q "SIGHUP: max-conns: 'max-conns = 32' -> 'max-conns = 40' needs a restart" "$T/d.log"
  check "SIGHUP reports nothing else" test "$(grep -c 'needs a restart' "$T/d.log")" = 1
  "$Z" status --addr "unix://$T/d.sock" >"$T/out" 2>&1
  check "the added key is served" grep -q three "$T/out"
  cp "$T/good.orig" "$T/good.conf"
  echo "gpus two" >>"$T/good.conf"
  check "SIGHUP with a bad file" hup 2
  check "a bad file is reported by line" grep -q "good.conf:$(wc -l <"$T/good.conf"): missing '='" "$T/d.log"
  check "a bad file changes nothing" grep -q "SIGHUP: the settings above are not valid: nothing changed" "$T/d.log"
  cp "$T/good.orig" "$T/good.conf"
  check "SIGHUP with a key removed" hup 3
  check "a removed key is still served until a restart" \
    grep -q "SIGHUP: key three: no longer configured" "$T/d.log"
  echo "key = bad=$T/absent.zpk" >>"$T/good.conf"
  # lazy-keys = yes: the key is registered now and fails on first use.
  check "SIGHUP with a key whose file is absent" hup 4
  check "a lazy key is added without loading" grep -q "SIGHUP: key bad=$T/absent.zpk added$" "$T/d.log"
  check "another SIGHUP" hup 5
  check "it is not added twice" test "$(grep -c 'SIGHUP: key bad=' "$T/d.log")" = 1
  "$Z" status --addr "unix://$T/d.sock" >"$T/out" 2>&1
  check "the daemon still answers after the reloads" grep -q three "$T/out"
  kill -TERM "$D"
  for i in $(seq 1 100); do kill -0 "$D" 2>/dev/null || break; sleep 0.1; done
  wait "$D"
  check "it stops on SIGTERM with status 0" test $? = 0
fi

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
