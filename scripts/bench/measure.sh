# Shared by scripts/bench-import and scripts/bench-import-cores (sourced, not run).
# Each writes into "$dir"; `rows` collects the summary table.

size() { stat -c %s "$1"; }
mb() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1e6}'; }
# Runs a command under /usr/bin/time -v; prints "wall_s peak_rss_mb cpu_s".
measure() {
  /usr/bin/time -v -o "$dir/time" "$@" >/dev/null
  awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]}
              /Maximum resident set size/ {rss = $2 / 1024}
              /User time|System time/ {cpu += $2}
              END {printf "%.2f %.0f %.2f\n", s, rss, cpu}' "$dir/time"
}
load() { cut -d' ' -f1-3 /proc/loadavg; }
# min A B: the smaller number (the first when B is empty).
min() { awk -v a="$1" -v b="$2" 'BEGIN {print (b == "" || a + 0 <= b + 0) ? a : b}'; }
# row FIGURE MEASURED TARGET PASS(1/0/-): "-" is a target this machine cannot measure.
rows=()
row() {
  local verdict
  case "$4" in 1) verdict=pass ;; -) verdict="n/a" ;; *) verdict=FAIL ;; esac
  rows+=("$(printf '| %-44s | %-28s | %-12s | %-4s |' "$1" "$2" "$3" "$verdict")")
}
le() { awk -v a="$1" -v b="$2" 'BEGIN {print (a + 0 <= b + 0) ? 1 : 0}'; }
# A fresh project at $1.
fresh() { rm -rf "$1" "$1-wal" "$1-shm" "$1.index"; "$factdesk" init "$1" >/dev/null; }
# The summary table of every `row`.
table() {
  printf '| %-44s | %-28s | %-12s | %-4s |\n' figure measured target
  printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..46})" "$(printf -- '-%.0s' {1..30})" "$(printf -- '-%.0s' {1..14})" "------"
  printf '%s\n' "${rows[@]}"
}
