# Helpers of server.test.sh (sourced). Expects Z (zkpipe), T (temp folder),
# PIDS (daemons to kill on exit), and sets A (address options) and TOKEN /
# GOOD_TOKEN (token options) as the test goes.
passes=0
fails=0

# Exits 77 (skipped) when $Z was built without the daemon or its clients.
skip_without_daemon() {
  if "$Z" serve 2>&1 | grep -q "no daemon"; then
    echo "this zkpipe was built without the daemon (libmicrohttpd, cJSON): skipped"
    exit 77
  fi
  if "$Z" request --addr unix:///nonexistent GET / 2>&1 | grep -q "without libcurl"; then
    echo "this zkpipe was built without libcurl (the daemon's clients): skipped"
    exit 77
  fi
}
# Makes the temporary folder T (/tmp/NAME.XXXXXX); on exit every daemon in
# PIDS is killed and T removed (kept when KEEP is set).
temp_folder() {
  T=$(mktemp -d "/tmp/$1.XXXXXX")
  PIDS=()
  trap temp_cleanup EXIT
  trap 'exit 1' INT TERM
}
temp_cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  [ -n "${KEEP:-}" ] || rm -rf "$T"; echo "T=$T"
}
A=()
TOKEN=()
GOOD_TOKEN=()

check() { # name command...
  local name=$1
  shift
  if "$@"; then
    echo "ok   $name"
    passes=$((passes + 1))
  else
    echo "FAIL $name" >&2
    fails=$((fails + 1))
  fi
}

size_of() { stat -c %s "$1" 2>/dev/null || echo 0; }

# Starts a daemon with its log in $T/NAME.log; DPID is its pid. Waits (up
# to 30 s) for its start line (serve.start); fails when it exits first.
start_daemon() {
  local name=$1
  shift
  "$Z" serve "$@" >"$T/$name.log" 2>&1 &
  DPID=$!
  PIDS+=("$DPID")
  local i
  for i in $(seq 1 300); do
    grep -q "serve.start" "$T/$name.log" && return 0
    kill -0 "$DPID" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# Waits up to $2 seconds for process $1 to exit; EXIT_RC is its status
# (or "running" when it did not exit; it is then killed).
wait_exit() {
  local i
  for i in $(seq 1 $(($2 * 10))); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$1" 2>/dev/null; then
    kill -9 "$1"
    wait "$1" 2>/dev/null
    EXIT_RC=running
  else
    wait "$1" 2>/dev/null
    EXIT_RC=$?
  fi
}

# One request to the daemon at A; prints the body.
rq() { "$Z" request "${A[@]}" "${GOOD_TOKEN[@]}" "$@"; }

# Waits (up to 10 s) until the daemon is answering at least $1 requests
# besides the one asking (n > $1), so that clients started in the
# background have sent their requests before a signal.
wait_requests() {
  local i n
  for i in $(seq 1 100); do
    n=$(rq GET /metrics | sed -n 's/^zkpipe_http_requests_in_progress //p')
    [ "${n:-0}" -gt "$1" ] && return 0
    sleep 0.1
  done
  echo "note: only ${n:-0} requests in progress" >&2
}

# The first value of "key" in a JSON text (strings unquoted).
jget() {
  printf '%s' "$1" | grep -o "\"$2\":\(\"[^\"]*\"\|[^,}]*\)" | head -1 |
    sed -e "s/^\"$2\"://" -e 's/^"//' -e 's/"$//'
}

# The tier of key $2 in the JSON of GET /v1/keys ($1).
key_tier() {
  printf '%s' "$1" | grep -o "\"name\":\"$2\",\"source\":\"[^\"]*\",\"tier\":\"[a-z]*\"" |
    sed 's/.*"tier":"\([a-z]*\)"/\1/'
}

# expect STATUS CODE request-args...: the answer has this HTTP status, and
# for errors a JSON body with this "error" code and a non-empty "message";
# afterwards GET /healthz must still answer 200.
expect() {
  local want=$1 code=$2
  shift 2
  local out st
  out=$("$Z" request -i "${A[@]}" "${TOKEN[@]}" "$@" 2>&1)
  st=$(printf '%s\n' "$out" | head -1)
  local name="$* -> $want${code:+ $code}"
  local good=1
  [ "$st" = "$want" ] || good=0
  if [ -n "$code" ]; then
    printf '%s' "$out" | grep -q "\"error\":\"$code\"" || good=0
    printf '%s' "$out" | grep -q '"message":"[^"]' || good=0
  fi
  if [ "$good" = 1 ]; then
    check "$name" true
  else
    check "$name (got: $(printf '%s' "$out" | head -c 300 | tr '\n' ' '))" false
  fi
  local h
  h=$("$Z" request -i "${A[@]}" "${GOOD_TOKEN[@]}" GET /healthz 2>&1 | head -1)
  [ "$h" = 200 ] || check "daemon healthy after: $name (healthz: $h)" false
}

# Prometheus text exposition (0.0.4): every sample line is
# name{label="value",...} number, every family has one TYPE, and samples
# (histogram _bucket/_sum/_count included) belong to a declared family.
prom_check() {
  awk '
    function fail(msg) { print "metrics: " msg ": " $0 > "/dev/stderr"; bad++ }
    /^# HELP / { if ($3 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) fail("bad HELP"); next }
    /^# TYPE / {
      if (NF != 4 || $3 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/ ||
          $4 !~ /^(counter|gauge|histogram|summary|untyped)$/) fail("bad TYPE")
      if ($3 in type) fail("second TYPE")
      type[$3] = $4
      next
    }
    /^#/ || /^$/ { next }
    {
      line = $0
      name = line
      sub(/[{ ].*/, "", name)
      if (name !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) { fail("bad name"); next }
      rest = substr(line, length(name) + 1)
      if (substr(rest, 1, 1) == "{") {
        end = index(rest, "} ")
        if (!end) { fail("unclosed labels"); next }
        labels = substr(rest, 2, end - 2)
        rest = substr(rest, end + 1)
        while (labels != "") {
          if (!match(labels, /^[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*"/)) { fail("bad label"); break }
          labels = substr(labels, RLENGTH + 1)
          if (substr(labels, 1, 1) == ",") labels = substr(labels, 2)
          else if (labels != "") { fail("bad label list"); break }
        }
      }
      if (rest !~ /^ ([-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|[-+]?Inf|NaN)( -?[0-9]+)?$/) fail("bad value")
      base = name
      sub(/_(bucket|sum|count)$/, "", base)
      if (!(name in type) && !(base in type)) fail("sample without TYPE")
      n++
    }
    END { exit (bad || n == 0) }
  ' "$1"
}
