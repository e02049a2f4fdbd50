#!/bin/sh
# instr.sh prints, for every bench pattern (bench.Patterns), the callgrind
# instructions per object of croql's typed evaluator (eval.Bind) and of the
# hand-written Go predicate, and their ratio: a figure that does not move
# with machine load (see cmd/instrcount). Run from the bench directory:
#
#	./instr.sh                 # every pattern, croql and hand
#	ENGINE=croql-plain ./instr.sh   # the unoptimised closures instead
#	ENGINE=croql-facade ./instr.sh  # croql.For(q).Match, the facade's typed path
#	ENGINE=croql-any ./instr.sh     # croql's Query.Match(any)
#	ENGINE=croql-program ./instr.sh # eval.Program.Match(any)
#	PATTERNS='count-eq-3 max-length-null' ./instr.sh   # some patterns only
#	PASSES=20 OUT=/tmp/x ./instr.sh # passes over the 2,000 strings; callgrind files kept in OUT
#	LAYOUT=resident ./instr.sh      # the strings in croql serve's resident snapshot layout
#
# Needs valgrind. Instructions are counted only inside main.measure (and
# the measure loops of the engines that have their own, main.measure*).
set -eu
cd "$(dirname "$0")"
PASSES=${PASSES:-20}
ENGINE=${ENGINE:-croql}
LAYOUT=${LAYOUT:-generated}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
bin="$OUT/instrcount"
go build -o "$bin" ./cmd/instrcount
objects=$((PASSES * 2000))
count() { # pattern engine -> instructions per object (two decimals)
	f="$OUT/cg.$1.$2.out"
	GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file="$f" \
		--toggle-collect='main.measure*' "$bin" -pattern "$1" -engine "$2" -layout "$LAYOUT" -passes "$PASSES" >/dev/null 2>&1
	ir=$(callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
	awk -v ir="$ir" -v n="$objects" 'BEGIN { printf "%.2f", ir / n }'
}
printf '| pattern | %s instr/object | hand instr/object | %s/hand |\n|---|---:|---:|---:|\n' "$ENGINE" "$ENGINE"
for p in ${PATTERNS:-$("$bin" -list)}; do
	c=$(count "$p" "$ENGINE")
	h=$(count "$p" hand)
	awk -v p="$p" -v c="$c" -v h="$h" 'BEGIN { printf "| %s | %s | %s | %.2f |\n", p, c, h, c / h }'
done
