#!/bin/bash
# hostile_sweep.sh — bpebench used as a hostile user would (issue 11's
# sweep, kept so that it keeps passing): names that are shell or gnuplot
# code, special tokens that would corrupt vocab.json, outputs that are
# links, FIFOs or directories, results files with impossible values, typed
# numbers far beyond the input, FIFOs and devices as inputs, escapes in
# messages. Each case runs the binary with a time limit and checks the exit
# status it must have (0, 2 for bad usage, or any failure), that it was not
# killed or stopped by the time limit, that a failure prints one line with
# no raw control byte, that no payload ran (PWNED never appears) and that no
# temporary file (*.tmp.*) is left. Prints one line per case; exits 1 if any
# case is a defect. Usage: BPEBENCH=build/bpebench bash tests/hostile_sweep.sh
B=$(realpath "${BPEBENCH:-build/bpebench}")
W=$(mktemp -d /tmp/bpebench-sweep-XXXXXX); trap 'rm -rf "$W"' EXIT; cd "$W" || exit 2
PWNED=$W/PWNED
printf 'hello world, a world of words.\nthe world says hello\n' > in.txt
n=0; bad=0
# case NAME EXPECT(ok|fail|error (1)|usage (2)|any) -- args...
case_() {
  local name=$1 expect=$2; shift 3
  n=$((n+1)); rm -f "$PWNED"
  timeout 60 "$B" "$@" > out.txt 2> err.txt < /dev/null; local rc=$?
  local lines=$(wc -l < err.txt) verdict=OK why=""
  if [ $rc -ge 124 ]; then verdict=DEFECT; why="rc=$rc (timeout/signal)"; fi
  case $expect in
    ok) [ $rc -eq 0 ] || { verdict=DEFECT; why="$why expected 0 got $rc"; } ;;
    usage) [ $rc -eq 2 ] || { verdict=DEFECT; why="$why expected 2 got $rc"; } ;;
    fail) [ $rc -ne 0 ] || { verdict=DEFECT; why="$why expected failure got 0"; } ;;
    error) [ $rc -eq 1 ] || { verdict=DEFECT; why="$why expected 1 got $rc"; } ;;
  esac
  if [ $rc -ne 0 ] && [ $rc -lt 124 ] && [ "$lines" -gt 1 ] && [ "$1" != bench ]; then verdict=DEFECT; why="$why stderr $lines lines"; fi
  [ -e "$PWNED" ] && { verdict=DEFECT; why="$why PAYLOAD RAN"; }
  find "$W" -name '*.tmp.*' | grep -q . && { verdict=DEFECT; why="$why temp left: $(find "$W" -name '*.tmp.*' | head -1)"; find "$W" -name '*.tmp.*' -delete; }
  grep -qP '[\x00-\x08\x0b-\x1f\x7f]' err.txt && { verdict=DEFECT; why="$why raw control byte in stderr"; }
  [ $verdict = DEFECT ] && bad=$((bad+1))
  printf '%3d %-7s %-55s rc=%d %s | %s\n' $n $verdict "$name" $rc "$why" "$(head -c 150 err.txt | tr '\n' ' ')"
}

P="touch $PWNED"
T=(train --trainer naive --vocab-size 300)
BQ=(bench --trainers naive --vocab 300 --repeats 1)
# ---- 1. names reaching gnuplot or a shell
for name in "';system \"$P\";'" "\$($P)" "\`$P\`" "a;$P" $'a\nb' 'a"b' "a'b" '..' '.hidden' 'a/b' "$(printf 'x%.0s' {1..64})" 'аbc' 'a b' '' 'x@5M' '-x' 'a\b' '{a}' 'a|b' 'a$HOME'; do
  case_ "bench --corpus name $(printf %q "$name" | head -c 40)" usage -- "${BQ[@]}" --corpus "$name=in.txt" --out o1
done
case_ "bench --corpus safe name" ok -- "${BQ[@]}" --corpus 'c1=in.txt' --out o1
mk_results() { # trainer corpus -> r.json
  cat > r.json <<J
{"schema_version":1,"context":{},"results":[{"trainer":$1,"corpus":$2,"vocab_size":300,"status":"ok","times_s":{"read":[0],"pretokenize":[0],"setup":[0],"merge":[1],"total":[1]}}]}
J
}
for name in "\"';system \\\"$P\\\";'\"" "\"\$($P)\"" "\"\`$P\`\"" "\"a\\nb\"" "\"a\\u0000b\"" "\"a\\\"b\"" "\"x\\u202eb\"" "\"$(printf 'y%.0s' {1..80})\"" "\"a@b@c\"" "\"\\u001b[31m\""; do
  mk_results "$name" '"c@all"'; case_ "report trainer $(echo $name | head -c 40)" fail -- report r.json --out rep1
  mk_results '"naive"' "$name"; case_ "report corpus $(echo $name | head -c 40)" fail -- report r.json --out rep2
  mk_results "$name" '"c@all"'; case_ "compare trainer $(echo $name | head -c 40)" fail -- compare r.json r.json
done
mk_results '"naive"' '"c@all"'; case_ "report safe names" ok -- report r.json --out rep3
for line in "trainers = naive;$P" "corpus \$($P) = in.txt" "corpus a\`$P\` = in.txt" "out = \$($P)" "vocab = 300;$P" "corpus c = in.txt
sizes c = \$($P)"; do
  printf '%s\nvocab = 300\nrepeats = 1\n' "$line" > g.conf
  case_ "config line $(echo "$line" | head -1 | head -c 40)" fail -- bench --config g.conf --out o2
done
# a repository in the current directory that runs a command when git looks at it
if command -v git > /dev/null; then
  mkdir -p gitrepo && git init -q gitrepo && git -C gitrepo config core.fsmonitor "$P"
  cp in.txt gitrepo/ && (cd gitrepo && git add in.txt && git -c user.name=x -c user.email=x@x commit -qm x) 2>/dev/null
  rm -f "$PWNED"
  cd gitrepo
  case_ "bench in a repository whose git config runs a command" ok -- "${BQ[@]}" --corpus c=in.txt --out o9
  cd "$W"
fi
# ---- 2. special tokens
for tok in a $'\xff' 'Ġworld' '' 'Ā' $'<|a\n|>' "$(printf 'z%.0s' {1..5000})" $'\xc3' $'\xed\xa0\x80' 'Ġ' 'ĠĠ' '<|a|>'; do
  case_ "train --special-token $(printf %q "$tok" | head -c 30)" any -- "${T[@]}" --out s1 --special-token "$tok" in.txt
done
case_ "train duplicate special tokens" any -- "${T[@]}" --out s2 --special-token '<|a|>' --special-token '<|a|>' in.txt
case_ "train overlapping special tokens" any -- "${T[@]}" --out s3 --special-token '<|a|>' --special-token '<|a|>b' in.txt
# ---- 3. train outputs
echo old > victim.txt; mkdir -p s4; ln -sf ../victim.txt s4/vocab.json
case_ "train --out with vocab.json symlink to a file outside" any -- "${T[@]}" --out s4 in.txt
[ "$(cat victim.txt)" = old ] || { echo "    DEFECT: victim.txt changed through a symlink"; bad=$((bad+1)); }
mkdir -p s5; mkfifo s5/vocab.json
case_ "train --out with vocab.json a FIFO" fail -- "${T[@]}" --out s5 in.txt
mkdir -p s6/merges.txt; case_ "train --out with merges.txt a directory" fail -- "${T[@]}" --out s6 in.txt
case_ "train --out is in.txt" fail -- "${T[@]}" --out in.txt in.txt
case_ "train --out /proc/self" fail -- "${T[@]}" --out /proc/self in.txt
case_ "train --out /dev/null" fail -- "${T[@]}" --out /dev/null in.txt
case_ "train --out ''" usage -- "${T[@]}" --out '' in.txt
ln -sfn s7real s7; mkdir -p s7real; case_ "train --out a symlink to a dir" ok -- "${T[@]}" --out s7 in.txt
case_ "train --out its own input's dir" ok -- "${T[@]}" --out . in.txt
# ---- 5. compare
echo -n > empty.json; case_ "compare empty file" fail -- compare empty.json empty.json
echo '{}' > o.json; case_ "compare {}" fail -- compare o.json o.json
echo '{"schema_version":2,"context":{},"results":[]}' > v2.json; case_ "compare schema 2" fail -- compare v2.json v2.json
echo '{"schema_version":1,"context":{},"results":[]}' > none.json; case_ "compare no results" fail -- compare none.json none.json
for t in NaN -1 1e400 '"1"' null Infinity; do
  printf '{"schema_version":1,"context":{},"results":[{"trainer":"naive","corpus":"c","vocab_size":300,"status":"ok","times_s":{"read":[0],"pretokenize":[0],"setup":[0],"merge":[%s],"total":[1]}}]}' "$t" > t.json
  case_ "compare merge time $t" fail -- compare t.json t.json
done
mk_results '"naive"' '"c@all"'; cp r.json base.json
printf '{"schema_version":1,"context":{},"results":[%s,%s]}' '{"trainer":"naive","corpus":"c@all","vocab_size":300,"status":"ok","times_s":{"read":[0],"pretokenize":[0],"setup":[0],"merge":[1],"total":[1]}}' '{"trainer":"naive","corpus":"c@all","vocab_size":300,"status":"ok","times_s":{"read":[0],"pretokenize":[0],"setup":[0],"merge":[1],"total":[1]}}' > dup.json
printf '{"schema_version":1,"context":{},"results":[%s]}' '{"trainer":"heap","corpus":"c@all","vocab_size":300,"status":"ok","times_s":{"read":[0],"pretokenize":[0],"setup":[0],"merge":[1],"total":[1]}}' > other.json
case_ "compare duplicated run" fail -- compare dup.json base.json
case_ "compare nothing matches" fail -- compare base.json other.json
case_ "compare same file" ok -- compare base.json base.json
for th in -1 nan inf 1e999 abc ''; do case_ "compare --threshold $th" usage -- compare --threshold "$th" base.json base.json; done
# ---- 6. typed numbers
case_ "slice --bytes 2^64-1 small file" ok -- slice --bytes 18446744073709551615 --out sl1.txt in.txt
case_ "slice --bytes 0" usage -- slice --bytes 0 --out sl2.txt in.txt
case_ "slice --bytes -1" usage -- slice --bytes -1 --out sl3.txt in.txt
case_ "slice --bytes 18446744073709551616" usage -- slice --bytes 18446744073709551616 --out sl4.txt in.txt
case_ "slice --bytes 1e9" usage -- slice --bytes 1e9 --out sl5.txt in.txt
for v in 18446744073709551615 18446744073709551616 0 255 -300 1e5 ' 300' '300 ' 0x200; do
  case_ "train --vocab-size '$v'" any -- train --trainer naive --vocab-size "$v" --out vv in.txt
done
case_ "synth --alphabet a infeasible" usage -- synth --alphabet a --words 1024 --mean-length 100 --bytes 1000 --out sy1.txt
case_ "synth --bytes huge" any -- synth --words 10 --bytes 18446744073709551615 --out sy2.txt
case_ "synth --words 0" usage -- synth --words 0 --bytes 100 --out sy3.txt
for opt in "--sizes 0" "--sizes 0.0001K" "--repeats 0" "--repeats 99999999999" "--time-limit 0" "--time-limit -1" "--time-limit nan" "--time-limit inf" "--vocab 0" "--vocab 255" "--vocab 300,300"; do
  case_ "bench $opt" usage -- bench --corpus c=in.txt --trainers naive --out o3 $opt
done
# ---- 7. inputs
mkfifo ff; case_ "train a FIFO directly" fail -- "${T[@]}" --out i1 ff
case_ "train /dev/zero" fail -- "${T[@]}" --out i2 /dev/zero
case_ "train /dev/null" fail -- "${T[@]}" --out i3 /dev/null
mkdir -p loop; ln -sfn ../loop loop/self; case_ "train dir with a symlink loop" any -- "${T[@]}" --out i4 loop
: > empty.txt; case_ "train empty file" fail -- "${T[@]}" --out i5 empty.txt
case_ "train stdin empty" fail -- "${T[@]}" --out i6 -
case_ "train missing file" fail -- "${T[@]}" --out i7 nope.txt
mkdir -p emptydir; case_ "train empty dir" fail -- "${T[@]}" --out i8 emptydir
printf 'a\0b c\0d\n' > nul.txt; case_ "train NUL bytes" ok -- "${T[@]}" --out i9 nul.txt
printf 'ok \xff\xfe bad\n' > inv.txt; case_ "train invalid UTF-8" fail -- "${T[@]}" --out i10 inv.txt
case_ "train invalid UTF-8 as bytes" ok -- "${T[@]}" --out i11 --invalid-utf8=bytes inv.txt
case_ "stats on FIFO" fail -- stats ff
case_ "slice of /dev/zero" fail -- slice --bytes 100 --out sl6.txt /dev/zero
case_ "bench corpus FIFO" usage -- "${BQ[@]}" --corpus c=ff --out o4
case_ "bench --config directory" usage -- bench --config . --out o5
printf 'vocab = 300\0\n' > nul.conf; case_ "bench --config with NUL" usage -- bench --config nul.conf --out o6
case_ "bench --config /dev/zero" usage -- bench --config /dev/zero --out o7
case_ "train --pattern bad" usage -- "${T[@]}" --out i12 --pattern '(' in.txt
case_ "bench --pattern bad" usage -- "${BQ[@]}" --corpus c=in.txt --pattern '(' --out o8
# ---- 8. messages
case_ "train unknown option" usage -- train --x
case_ "bench unknown option" usage -- bench --x
case_ "report unknown option" usage -- report --x
case_ "train --out with ANSI escape" any -- "${T[@]}" --out $'\e[31mred' nope.txt
case_ "train input with newline name" fail -- "${T[@]}" --out i13 $'no\nsuch'
case_ "train --trainer OSC escape" usage -- train --trainer $'\e]0;title\a' --vocab-size 300 --out i14 in.txt
case_ "train overlong path" fail -- "${T[@]}" --out i15 "$(printf 'd/%.0s' {1..3000})x.txt"
case_ "train overlong --out" fail -- "${T[@]}" --out "$(printf 'e%.0s' {1..5000})" in.txt
case_ "report missing --out given" any -- report nope.json
# word-count files (count, train --counts): outputs that are not files,
# counts files that are not counts files, a header whose pattern is code.
"$B" count --out ok.counts in.txt > /dev/null
printf '#bpebench word counts v1 {"pattern":"$(touch %s)","special_tokens":["`touch %s`"]}\n1\tab\n#end 1 1\n' "$PWNED" "$PWNED" > code.counts
case_ "count --out a directory" fail -- count --out . in.txt
case_ "count --out /dev/null" fail -- count --out /dev/null in.txt
case_ "count --threads huge" usage -- count --threads 99999999999999999999 --out c1 in.txt
case_ "train --counts a corpus" fail -- "${T[@]}" --out c2 --counts in.txt
case_ "train --counts a directory of text" fail -- "${T[@]}" --out c3 --counts .
case_ "train --counts /dev/zero" fail -- "${T[@]}" --out c4 --counts /dev/zero
case_ "train --counts header is shell code" any -- "${T[@]}" --out c5 --counts code.counts
case_ "train --counts with --pattern" usage -- "${T[@]}" --out c6 --counts --pattern gpt4 ok.counts
case_ "train --counts vocab too small" usage -- train --trainer naive --vocab-size 3 --out c7 --counts ok.counts
# word-count files whose syntax is right but whose meaning is not: the file's error (exit 1)
H='#bpebench word counts v1 '
printf '%s{"pattern":"(","special_tokens":[]}\n1\tab\n#end 1 1\n' "$H" > wc1.counts
printf '%s{"pattern":"gpt2","special_tokens":["<|endoftext|>"]}\n3\t<|endoftext|>\n#end 1 3\n' "$H" > wc2.counts
printf '%s{"pattern":"gpt2","special_tokens":["<s>"]}\n3\tab<s>c\n#end 1 3\n' "$H" > wc3.counts
printf '%s{"pattern":"gpt2","special_tokens":[]}\r\n1\tab\r\n#end 1 1\r\n' "$H" > wc4.counts
printf '%s{"pattern":"gpt2","pattern":"(","special_tokens":[]}\n1\tab\n#end 1 1\n' "$H" > wc5.counts
printf '%s{"pattern":"gpt2","special_tokens":["<|a\\u0000b|>"]}\n1\tab\n#end 1 1\n' "$H" > wc6.counts
printf '%s{"pattern":"gpt2","special_tokens":["\\u001b]0;pwn\\u0007"]}\n1\tab\n#end 1 1\n' "$H" > wc7.counts
printf '%s{"pattern":"gpt2","special_tokens":[]} {}\n1\tab\n#end 1 1\n' "$H" > wc8.counts
case_ "train --counts header pattern does not compile" error -- "${T[@]}" --out w1 --counts wc1.counts
case_ "train --counts word = special token" error -- "${T[@]}" --out w2 --counts wc2.counts
case_ "train --counts word holds a special token" error -- "${T[@]}" --out w3 --counts wc3.counts
case_ "train --counts CR LF line ends" error -- "${T[@]}" --out w4 --counts wc4.counts
case_ "train --counts header key twice" error -- "${T[@]}" --out w5 --counts wc5.counts
case_ "train --counts header \\u0000 in a token" error -- "${T[@]}" --out w6 --counts wc6.counts
case_ "train --counts header OSC escape in a token" error -- "${T[@]}" --out w7 --counts wc7.counts
case_ "train --counts text after the header object" error -- "${T[@]}" --out w8 --counts wc8.counts
case_ "count --pattern with a tab" usage -- count --out w9.counts --pattern $'a\tb' in.txt
case_ "count --special-token with a newline" usage -- count --out w10.counts --special-token $'<|a\n|>' in.txt
ls -d w? w?.counts w10.counts 2> /dev/null | grep -q . && { echo "    DEFECT: a refused word-count case wrote $(ls -d w? w?.counts w10.counts 2> /dev/null | head -1)"; bad=$((bad+1)); }
# outputs that reach an input, by any path: refused (exit 2) before anything is written
cp in.txt keep.txt; mkdir -p cd1 cd2 cd3 o9/plots rep9; cp in.txt cd1/; cp ok.counts cd2/
cp ok.counts cd3/vocab.json; cp in.txt o9/plots/; cp base.json rep9/report.md
ln -sf in.txt inlink.txt; ln -f in.txt inhard.txt; ln -sfn cd1 cd1link
case_ "count --out its input" usage -- count --out in.txt in.txt
case_ "count --out its input through .." usage -- count --out cd1/../in.txt in.txt
case_ "count --out a symlink to its input" usage -- count --out inlink.txt in.txt
case_ "count --out its input through a symlink" usage -- count --out in.txt inlink.txt
case_ "count --out a hard link of its input" usage -- count --out inhard.txt in.txt
case_ "count --out inside its input dir" usage -- count --out cd1/x.counts cd1
case_ "count --out inside its input dir via link" usage -- count --out cd1link/x.counts cd1
case_ "count --out a new dir and .. into input dir" usage -- count --out cd1/new/../x.counts cd1
case_ "slice --out its input" usage -- slice --bytes 10 --out in.txt in.txt
case_ "slice --out inside its input dir" usage -- slice --bytes 10 --out cd1/s.txt cd1
case_ "train --out its input dir" usage -- "${T[@]}" --out cd1 cd1
case_ "train --out a new dir and .. = input dir" usage -- "${T[@]}" --out cd1/new/.. cd1
case_ "train --counts --out the counts' dir" usage -- "${T[@]}" --out cd2 --counts cd2
case_ "train --counts its own vocab.json" usage -- "${T[@]}" --out cd3 --counts cd3/vocab.json
case_ "bench --out its corpus dir" usage -- "${BQ[@]}" --corpus c=cd1 --out cd1
case_ "bench --out holds its corpus in plots/" usage -- "${BQ[@]}" --corpus c=o9/plots/in.txt --out o9
case_ "report of a results file named report.md" usage -- report rep9/report.md
cmp -s in.txt keep.txt || { echo "    DEFECT: in.txt changed"; bad=$((bad+1)); }
[ "$(ls cd1)" = in.txt ] || { echo "    DEFECT: cd1 holds $(ls cd1 | tr '\n' ' ')"; bad=$((bad+1)); }
cmp -s rep9/report.md base.json || { echo "    DEFECT: rep9/report.md changed"; bad=$((bad+1)); }
case_ "unknown command" usage -- frobnicate
case_ "no command" usage --
echo "hostile_sweep: $n cases, $bad defects"
[ $bad -eq 0 ]
