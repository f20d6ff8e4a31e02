#!/bin/bash
# usage: Benchmarks/peers/subscriber_memory.sh BOOKSD BOOKSCTL LABEL ; prints idle and busy VmHWM/VmRSS/RssAnon/RssFile of booksctl subscribe --json
D=$(mktemp -d /tmp/books-submem.XXXX); S=$D/s.sock
for i in $(seq 1 10); do printf '%08d-0000-0000-0000-000000000000|Book %d|Author\n' $i $i; done > $D/books.txt
$1 --file $D/books.txt --socket $S --log-level error & DP=$!
for i in $(seq 100); do [ -S $S ] && break; sleep 0.05; done
$2 --socket $S subscribe --json > $D/out.txt & CP=$!
sleep 1
m(){ awk -v l="$1" '/^(VmHWM|VmRSS|RssAnon|RssFile):/{printf "%s %s=%.1f", l, $1, $2/1024} END{print ""}' /proc/$CP/status; }
m "$3 idle"
for i in $(seq 1 100); do printf '%08d-1111-0000-0000-000000000000|Busy %d|Author\n' $i $i >> $D/books.txt; done
for i in $(seq 1 20); do $2 --socket $S add "Client $i" "Writer" >/dev/null; done
sleep 1
m "$3 busy"
echo "lines: $(wc -l < $D/out.txt)"
kill $CP; kill $DP; wait 2>/dev/null; rm -rf $D
