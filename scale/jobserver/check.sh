#!/usr/bin/env bash
# The portable route with a standalone prism job server: LOOPBACK, then
# PROCESS through boot and boot-unquote. Needs spca-batch, a codec model
# and a list of images:
#   scale/jobserver/check.sh SPCA_BATCH MODEL LIST     (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1") model=$(realpath "$2") list=$(realpath "$3")
w=${JS_DIR:-/tmp/spca-batch-js}
mkdir -p "$w"
go build -o "$w/prism" github.com/apache/beam/sdks/v2/go/cmd/prism
go build -o "$w/boot" github.com/apache/beam/sdks/v2/go/container
# boot-unquote runs in prism's environment: BEAM_BOOT is set for prism.
# It writes pipeline_options.json in its working directory: run it in $w.
(cd "$w" && BEAM_BOOT="$w/boot" exec "$w/prism" --job_port 8173 --serve_http=false >"$w/prism.log" 2>&1) &
trap 'kill $!' EXIT
sleep 3
rm -rf "$w/out-loopback" "$w/out-process"
"$bin" encode --runner=universal --endpoint=localhost:8173 --environment_type=LOOPBACK \
	--model "$model" --in "$list" --out "$w/out-loopback"
timeout 300 "$bin" encode --runner=universal --endpoint=localhost:8173 \
	--environment_type=PROCESS --environment_config="{\"command\":\"$PWD/jobserver/boot-unquote\"}" \
	--worker_binary="$bin" --model "$model" --in "$list" --out "$w/out-process"
for f in "$w"/out-loopback/*.spc; do cmp "$f" "$w/out-process/$(basename "$f")"; done
echo "LOOPBACK and PROCESS outputs identical"
