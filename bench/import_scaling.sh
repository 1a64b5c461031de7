#!/usr/bin/env bash
# Import scaling (issue 17): PyTorch profiler traces of 50, 100, 200 and 500 MB made from the real
# H200 BERT trace (../shared/data/h200/bert_fold.json.gz, 279 MB of JSON), each imported and
# attributed by `jouleprof attribute` (table output) beside Python's json.load of the same file,
# one after the other in this run. Prints wall and CPU time and peak RSS per size: time and RSS
# should grow linearly with the size, and RSS stay well under it.
#   bench/import_scaling.sh [BUILD_DIR] [SIZES_MB…]     (default: build 50 100 200 500)
# The traces go to a temporary directory, removed at exit. Up to 279 MB a trace is a prefix of
# the real one (cut at an event); beyond, the events repeat with times shifted past the previous
# copy and correlation and flow ids offset, so that every copy links within itself.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ "$build" = /* ]] || build="$root/$build"
shift || true
sizes=("$@")
((${#sizes[@]})) || sizes=(50 100 200 500)
data="$root/../shared/data/h200"
jouleprof="$build/bin/jouleprof"
[[ -x "$jouleprof" ]] || { echo "import_scaling: no $jouleprof (build first)" >&2; exit 1; }
[[ -r "$data/bert_fold.json.gz" ]] || { echo "import_scaling: no $data/bert_fold.json.gz" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$data/bert_fold.json.gz" "$tmp" "${sizes[@]}" <<'PY'
import gzip, re, sys
source, out_dir, sizes = sys.argv[1], sys.argv[2], sorted(int(s) for s in sys.argv[3:])
header, events, footer, block = [], [], [], []
part = header
with gzip.open(source, "rt", encoding="utf-8") as f:
    for line in f:
        if part is header:
            header.append(line)
            if line.rstrip().endswith('"traceEvents": ['):
                part = events
        elif part is events:
            if line.startswith("  ]"):
                footer.append(line)
                part = footer
                continue
            block.append(line)
            if line.startswith("  }"):
                events.append("".join(block).rstrip().rstrip(",") + "\n")
                block = []
        else:
            footer.append(line)
numbers = re.compile(r'("(?:ts|correlation|id)": )(-?[0-9.]+)')
span_us = 20_000_000  # past the 15 s the real trace covers
def shifted(event, copy):
    def shift(m):
        if m.group(1).startswith('"ts"'):
            return f"{m.group(1)}{float(m.group(2)) + copy * span_us:.3f}"
        return f"{m.group(1)}{int(m.group(2)) + copy * 100_000_000}"
    return numbers.sub(shift, event) if copy else event
head = "".join(header)
outputs = [(mb, open(f"{out_dir}/trace_{mb}mb.json", "w", encoding="utf-8")) for mb in sizes]
written = len(head)
for _, o in outputs:
    o.write(head)
open_outputs = list(outputs)
copy = 0
first = True
while open_outputs:
    for event in events:
        text = ("" if first else ",\n") + shifted(event, copy).rstrip("\n")
        first = False
        for mb, o in open_outputs:
            o.write(text)
        written += len(text)
        while open_outputs and written >= open_outputs[0][0] * 1_000_000:
            mb, o = open_outputs.pop(0)
            o.write("\n" + "".join(footer))
            o.close()
        if not open_outputs:
            break
    copy += 1
PY

load() { cut -d' ' -f1-3 /proc/loadavg; }
printf '%-8s %-26s %9s %9s %9s %9s %s\n' size step wall_s cpu_s rss_MB rss/size load
run() {  # label, command…: one line of figures
  local label=$1
  shift
  local before
  before=$(load)
  /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
    { echo "import_scaling: $label failed:" >&2; tail -5 "$tmp/err" >&2; exit 1; }
  read -r wall user sys rss_kb <"$tmp/time"
  awk -v s="$mb MB" -v l="$label" -v w="$wall" -v u="$user" -v y="$sys" -v r="$rss_kb" \
    -v b="$bytes" -v ld="$before" \
    'BEGIN { printf "%-8s %-26s %9.2f %9.2f %9.0f %9s %s\n", s, l, w, u + y, r / 1024,
             (b > 1 ? sprintf("%.3f", r * 1024 / b) : "-"), ld }'
  echo "$wall" >"$tmp/wall_$label"
}
# The CLI's own start-up (shared libraries, libtorch where built with it): in every row below.
bytes=1 mb=0 run "jouleprof_version" "$jouleprof" version
for mb in "${sizes[@]}"; do
  trace="$tmp/trace_${mb}mb.json"
  bytes=$(stat -c %s "$trace")
  run "jouleprof_attribute" "$jouleprof" attribute --trace "$trace" --samples \
    "$data/nvml_fast.csv" --meta "$data/meta_fold.json"
  run "python_json_load" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$trace"
  awk -v p="$(cat "$tmp/wall_python_json_load")" -v j="$(cat "$tmp/wall_jouleprof_attribute")" \
    -v s="$mb MB" 'BEGIN { printf "%-8s json.load / jouleprof attribute (wall): %.1fx\n", s, p / j }'
done
