# Sourced by the bench scripts that start croql serve.

# wait_serve LOG PID [PATTERN]: waits until the croql serve of PID, whose
# stderr goes to LOG, listens (or until LOG has PATTERN) (up to 10
# minutes); prints the log and exits 1 if it ends first.
wait_serve() {
	i=0
	until grep -qs "${3:-api/v2/projects}" "$1"; do
		i=$((i + 1))
		if [ "$i" -gt 1200 ] || ! kill -0 "$2" 2>/dev/null; then
			echo "croql serve did not start:"; cat "$1"; exit 1
		fi
		sleep 0.5
	done
}
