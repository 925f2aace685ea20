#!/usr/bin/env bash
# Benchmark of spca-batch against the plain spca command on N generated
# images (default 300: the A images of 300 generated scenes of SIZE,
# default 256x256), in one
# hyperfine run: the CLI looping one process per image, the CLI with all
# files in one call, and the pipeline on embedded prism.
#
#   scale/bench/run.sh [N] [SIZE]        (from the repository root)
#
# Work files go to ${BENCH_DIR:-/tmp/spca-batch-bench}.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-300}
size=${2:-256x256}
w=${BENCH_DIR:-/tmp/spca-batch-bench}
mkdir -p "$w"
go build -o "$w/spca" ./cmd/spca
(cd scale && go build -o "$w/spca-batch" ./cmd/spca-batch)

if [ ! -d "$w/images-$n-$size" ]; then
	"$w/spca" synth scenes --n "$n" --size "$size" --out "$w/images-$n-$size"
fi
imgs="$w/images-$n-$size"
find "$imgs/a" -name '*.png' | sort >"$w/list.txt"
echo "$(wc -l <"$w/list.txt") images in $imgs"
if [ ! -f "$w/codec.model" ]; then
	"$w/spca" codec train --quiet --images "$(head -1 "$w/list.txt")" $(sed -n '2,8p' "$w/list.txt") \
		--patch 4 --gamma 0 --uniform --bpp 1.5 --samples 20000 --out "$w/codec.model"
fi

# The loop costs minutes (each process loads the model again): RUNS
# (default 3) of the two fast ones, then one run of all three.
prep="rm -rf $w/out-loop $w/out-one $w/out-beam; mkdir -p $w/out-loop $w/out-one"
loop="while read -r f; do $w/spca encode --quiet --model $w/codec.model -o $w/out-loop/\$(basename \"\$f\" .png).spc \"\$f\"; done <$w/list.txt"
one="xargs $w/spca encode --quiet --model $w/codec.model -o $w/out-one <$w/list.txt"
beam="$w/spca-batch encode --quiet --model $w/codec.model --in $w/list.txt --out $w/out-beam"
hyperfine --runs "${RUNS:-3}" --export-markdown "$w/bench.md" --prepare "$prep" \
	-n "spca encode, all files in one call" "$one" \
	-n "spca-batch encode (prism)" "$beam"
hyperfine --runs 1 --export-markdown "$w/bench-all.md" --prepare "$prep" \
	-n "spca encode, one process per image" "$loop" \
	-n "spca encode, all files in one call" "$one" \
	-n "spca-batch encode (prism)" "$beam"
cat "$w/bench.md"
cat "$w/bench-all.md"
# The outputs are the same bytes. hyperfine's --prepare emptied the CLI's
# output directories before the pipeline's run: code them again once.
rm -rf "$w/out-one" && mkdir -p "$w/out-one" && eval "$one"
for f in "$w"/out-one/*.spc; do cmp "$f" "$w/out-beam/$(basename "$f")"; done
echo "outputs of the pipeline identical to those of spca encode"
