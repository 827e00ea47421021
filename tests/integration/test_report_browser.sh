#!/usr/bin/env bash
# tpmtrace report in a real browser: headless Chromium loads the HTML from disk,
# the DOM it built is checked against the database (marks, events, latency
# rows, policy bars), the page's own script must have run without an error, and
# a screenshot is kept in the build directory (artifacts/report-*.png).
# Inputs: the demo workload recorded against a spawned swtpm and replayed under
# two policies, and a real capture from ../shared/data/pcap imported. The page
# counts the trace's own commands (tpmtrace's, flag 32: the Startup of the
# spawned swtpm, left out; docs/schema.md, "Figures"). At 1280 px the page has
# no horizontal scrollbar (a wide table scrolls in its own box) and every
# chart label lies inside its chart's box (the charts of "What to change" too,
# which comes right after the answer).
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup sqlite3 python3
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip "chromium is not installed (apt-get install chromium)"
PCAP=$TPMTRACE_SHARED_DATA/pcap/esys-create-session-auth-ecc.int.pcap
[ -f "$PCAP" ] || skip "$PCAP missing (the shared test data)"
ART=${TPMTRACE_TEST_BUILD:-$T}/artifacts
mkdir -p "$ART"

browser() { # browser OUT_DOM OUT_PNG OUT_LOG FILE
	local prof
	prof=$(mktemp -d "$T/chromium.XXXXXX")
	local common=(--headless --no-sandbox --disable-gpu --disable-background-networking
		--disable-component-update --disable-sync --no-first-run --hide-scrollbars
		--user-data-dir="$prof" --enable-logging=stderr --v=0)
	timeout 120 "$CHROMIUM" "${common[@]}" --dump-dom "file://$4" >"$1" 2>"$3"
	timeout 120 "$CHROMIUM" "${common[@]}" --window-size=1320,2700 --screenshot="$2" \
		"file://$4" >/dev/null 2>>"$3"
}

# dom_query DOM WHAT: facts about the DOM Chromium dumped, one per line.
dom_query() {
	python3 - "$1" <<'EOF'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.stack=[]; s.c={}; s.attrs={}
    def handle_starttag(s, tag, a):
        a=dict(a); cls=(a.get('class') or '').split()
        k=lambda n: s.c.__setitem__(n, s.c.get(n,0)+1)
        if tag=='body':
            for x in ('data-commands','data-events','data-aggregated','data-script-ok','data-trace-id'):
                s.attrs[x]=a.get(x,'')
        if tag=='svg' and a.get('id'):
            k('svg:'+a['id']); s.attrs['svg:'+a['id']]=a
        if tag=='rect' and 'm' in cls:
            k('marks'); s.c['marked']=s.c.get('marked',0)+int(a.get('data-n','1'))
        if tag=='g' and 'ev' in cls: k('events')
        if tag=='g' and 'lat-row' in cls: k('latrows')
        if tag=='tr' and 'top' in cls: k('top')
        if tag=='g' and 'bar' in cls:
            k('bars:'+a.get('data-kind','')); 
            if a.get('data-factor') and float(a['data-factor'])>0: k('factors')
        if tag=='p' and a.get('id')=='aggregated': k('aggregated-note')
        if tag=='p' and a.get('id')=='axis-note': s.attrs['axis']=a.get('data-axis','')
        if tag=='tr' and 'headline-row' in cls:
            k('headline:'+a.get('data-kind',''))
            if a.get('data-x-password') and float(a['data-x-password'])>0: k('headline-xpw')
            if a.get('data-fallback-share') is not None: k('headline-share')
            if a.get('data-mostly-fallback')=='1': k('headline-mostly-fallback')
        if tag=='g' and 'value-axis' in cls and a.get('data-measure'): k('value-axes')
        if tag=='text' and 'axis-title' in cls: k('axis-titles')
        if tag=='rect' and 'mk' in cls: k('marks-min1px')
        if tag=='tspan' and 'factor' in cls: k('factor-labels')
        if tag in ('script','link','img','iframe') and (a.get('src') or a.get('href')): k('external')
P_=P(); P_.feed(open(sys.argv[1]).read())
for k,v in sorted(P_.attrs.items()):
    if not k.startswith('svg:'): print(f'{k}={v}')
for k,v in sorted(P_.c.items()): print(f'{k}={v}')
for k in ('timeline','latency','policy-measured','policy-predicted'):
    a=P_.attrs.get('svg:'+k)
    if a: print(f'svg-{k}-bars={a.get("data-bars","")}')
EOF
}
val() { grep -m1 "^$2=" "$1" | cut -d= -f2-; }

console_errors() { # lines of the browser log that report a page error
	grep -E 'CONSOLE|Uncaught|SyntaxError|ReferenceError|TypeError' "$1" |
		grep -viE 'dbus|gpu|sandbox' || true
}

# ---- the demo database: a recording and two replays ----
DB=$T/demo.db
"$TPMTRACE" record --spawn-swtpm --db "$DB" -- "$TPMTRACE_SRC/tools/demo-workload" 50 \
	>"$T/rec.out" 2>&1 || {
	cat "$T/rec.out"
	echo "record failed"
	exit 1
}
for p in password linux-6.10; do
	check "replay $p" "$TPMTRACE" replay "$DB" --trace 1 --policy $p --json >/dev/null
done
HTML=$T/demo.html
check "report exits 0" "$TPMTRACE" report "$DB" --trace 1 --profile slb9670-linux-integrity -o "$HTML"
expect_eq "report file mode" "$(stat -c %a "$HTML")" 600
browser "$T/demo.dom" "$ART/report-demo.png" "$T/demo.log" "$HTML"
dom_query "$T/demo.dom" >"$T/demo.facts"
cat "$T/demo.facts"
n_cmd=$(sqlite3 "$DB" "SELECT count(*) FROM command WHERE trace_id=1 AND NOT flags & 32")
n_ev=$(sqlite3 "$DB" "SELECT count(*) FROM event WHERE trace_id=1")
n_cc=$(sqlite3 "$DB" "SELECT count(DISTINCT cc) FROM command WHERE trace_id=1 AND latency_ns IS NOT NULL AND NOT flags & 32")
n_pol=$(sqlite3 "$DB" "SELECT count(DISTINCT policy) FROM trace WHERE parent_id=1 AND kind='replay'")
check "demo has commands and events" test "$n_cmd" -gt 100 -a "$n_ev" -gt 0
expect_eq "script ran without error" "$(val "$T/demo.facts" data-script-ok)" 1
expect_eq "body data-commands = database" "$(val "$T/demo.facts" data-commands)" "$n_cmd"
expect_eq "one timeline mark per command" "$(val "$T/demo.facts" marks)" "$n_cmd"
expect_eq "one event mark per event" "$(val "$T/demo.facts" events)" "$n_ev"
expect_eq "timeline not aggregated" "$(val "$T/demo.facts" data-aggregated)" 0
expect_eq "latency rows = command codes" "$(val "$T/demo.facts" latrows)" "$n_cc"
expect_eq "20 slowest" "$(val "$T/demo.facts" top)" 20
expect_eq "measured bars: recorded + one per replayed policy" \
	"$(val "$T/demo.facts" svg-policy-measured-bars)" $((1 + n_pol))
expect_eq "replay bars" "$(val "$T/demo.facts" bars:replay)" "$n_pol"
# The presets, as predict lists them (--policy all, model/policy.c).
n_pre=$("$TPMTRACE" predict --synthetic pcr-extend:1 --profile slb9670-linux-integrity \
	--host-crypto estimate --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["policies"]))')
check "predict lists the presets" test "$n_pre" -ge 6
expect_eq "predicted bars: every preset" "$(val "$T/demo.facts" bars:predicted)" "$n_pre"
check "every bar has a factor" test "$(val "$T/demo.facts" factor-labels)" -eq $((1 + n_pol + n_pre))
expect_eq "nothing loaded from elsewhere" "$(val "$T/demo.facts" external)" ""
expect_eq "no console errors (demo)" "$(console_errors "$T/demo.log")" ""
check "screenshot of the demo report" test -s "$ART/report-demo.png"
check "screenshot is a PNG" bash -c "head -c 8 '$ART/report-demo.png' | od -An -tx1 | grep -q '89 50 4e 47'"
# The slowest command in the table is the slowest in the database.
top1=$(grep -o 'data-seq="[0-9]*" data-latency-ns="[0-9]*"' "$T/demo.dom" | head -1 | grep -o 'latency-ns="[0-9]*"' | tr -dc 0-9)
expect_eq "slowest command" "$top1" "$(sqlite3 "$DB" "SELECT max(latency_ns) FROM command WHERE trace_id=1 AND NOT flags & 32")"

# ---- 1280 px: no horizontal scrolling, no chart label cut ----
# A probe appended to a copy of the page opens every <details>, then writes
# into the DOM: how far the document overflows the window sideways, the labels
# (svg <text>) that reach outside their chart's box, and the tables, sections
# and charts that reach past the window without a box of their own that
# scrolls them.
fit_probe() { # fit_probe HTML OUT_DOM
	python3 - "$1" "$1.fit.html" <<'PY'
import sys
probe = """<script>(function(){var W=window.innerWidth,cut=[],wide=[];
document.querySelectorAll("details").forEach(function(d){d.open=true;});
document.querySelectorAll("svg").forEach(function(s){var r=s.getBoundingClientRect();
 s.querySelectorAll("text").forEach(function(t){var b=t.getBoundingClientRect();
  if(b.width>0&&(b.left<r.left-1||b.right>r.right+1))cut.push((s.id||"svg")+": "+t.textContent.slice(0,30));});});
document.querySelectorAll("table,section,svg,.cards").forEach(function(e){var b=e.getBoundingClientRect(),held=false;
 for(var p=e.parentElement;p;p=p.parentElement)if(getComputedStyle(p).overflowX=="auto")held=true;
 if(b.right>W+1&&!held)wide.push(e.tagName+"#"+(e.id||e.className)+" "+Math.round(b.right));});
var d=document.documentElement;document.body.setAttribute("data-fit-overflow",d.scrollWidth-d.clientWidth);
document.body.setAttribute("data-fit-cut",cut.length+(cut.length?": "+cut.slice(0,4).join("; "):""));
document.body.setAttribute("data-fit-wide",wide.length+(wide.length?": "+wide.slice(0,4).join("; "):""));})();</script>"""
page = open(sys.argv[1]).read()
assert page.count('</body></html>') == 1
open(sys.argv[2], 'w').write(page.replace('</body></html>', probe + '</body></html>'))
PY
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$(mktemp -d "$T/chromium.XXXXXX")" --window-size=1280,1000 \
		--dump-dom "file://$1.fit.html" >"$2" 2>/dev/null
}
fit_attr() { grep -o "data-fit-$2=\"[^\"]*\"" "$1" | sed 's/^[^"]*"//; s/"$//'; }
fit_probe "$HTML" "$T/fit.dom"
expect_eq "1280 px: the probe ran" "$(fit_attr "$T/fit.dom" overflow | grep -c '^-\?[0-9]')" 1
expect_eq "1280 px: no horizontal scrolling (scrollWidth - clientWidth)" "$(fit_attr "$T/fit.dom" overflow)" 0
expect_eq "1280 px: every chart label inside its chart" "$(fit_attr "$T/fit.dom" cut)" 0
expect_eq "1280 px: nothing reaches past the window" "$(fit_attr "$T/fit.dom" wide)" 0

# ---- the answer first: headline table within the first 1,000 px ----
# A copy of the page with a probe appended: it writes the table's bottom edge,
# its rows and every chart's value-axis title into the DOM Chromium dumps.
sed 's|</body></html>|<script>var t=document.getElementById("headline-table").getBoundingClientRect();document.body.setAttribute("data-headline-bottom",Math.ceil(t.bottom+window.scrollY));</script></body></html>|' \
	"$HTML" >"$T/probe.html"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$(mktemp -d "$T/chromium.XXXXXX")" --window-size=1320,1000 \
	--dump-dom "file://$T/probe.html" >"$T/probe.dom" 2>/dev/null
bottom=$(grep -o 'data-headline-bottom="[0-9]*"' "$T/probe.dom" | tr -dc 0-9)
check "headline table measured" test -n "$bottom"
check "headline table ends within the first 1,000 px ($bottom)" test "${bottom:-9999}" -le 1000
expect_eq "headline: the recording and every replayed policy" \
	"$(($(val "$T/demo.facts" headline:recorded) + $(val "$T/demo.facts" headline:replay)))" $((1 + n_pol))
expect_eq "headline: every preset predicted" "$(val "$T/demo.facts" headline:predicted)" "$n_pre"
expect_eq "headline: every row has x password" "$(val "$T/demo.facts" headline-xpw)" $((1 + n_pol + n_pre))
expect_eq "headline: every row has a fallback share" "$(val "$T/demo.facts" headline-share)" $((1 + n_pol + n_pre))
charts=$(grep -cE 'class="(policy|advise)-chart"' "$T/demo.dom")
expect_eq "every chart has a value axis" "$(val "$T/demo.facts" value-axes)" "$charts"
expect_eq "every value axis has a title" "$(val "$T/demo.facts" axis-titles)" "$charts"
# "What to change" (advise's findings, test_report_advise_section.sh) right
# after the answer, before the timeline.
expect_eq "the sections in order: the answer, what to change, the timeline" \
	"$(grep -o '<section id="[a-z-]*"' "$T/demo.dom" | head -3 | cut -d'"' -f2 | tr '\n' ' ')" \
	"headline advise-section timeline-section "
check "value axes name their measure" grep -q 'data-measure="TPM time"' "$T/demo.dom"
check "... TPM time and total time" grep -q 'data-measure="total time"' "$T/demo.dom"
expect_eq "timeline on time" "$(val "$T/demo.facts" axis)" time
expect_eq "every command mark at least 1 px (non-scaling stroke)" \
	"$(val "$T/demo.facts" marks-min1px)" "$n_cmd"
check "mark titles name seq, command and latency" \
	grep -qE '<title>seq [0-9]+: [A-Za-z_]+, latency [0-9.]+ [µm]?s' "$T/demo.dom"
# The mark in the table, the text and the JSON agree with the shares.
J=$T/demo.json
check "report --json" "$TPMTRACE" report "$DB" --trace 1 --profile slb9670-linux-integrity --json -o "$J"
mf_json=$(python3 -c "import json,sys;d=json.load(open(sys.argv[1]));print(sum(p['mostly_fallback'] for p in d['predicted'][0]['policies']))" "$J")
mf_share=$(python3 -c "import json,sys;d=json.load(open(sys.argv[1]));print(sum(p['fallback_share']>d['fallback_threshold'] for p in d['predicted'][0]['policies']))" "$J")
expect_eq "JSON marks exactly the rows over the threshold" "$mf_json" "$mf_share"
expect_eq "page marks the same rows" "$(val "$T/demo.facts" headline-mostly-fallback)" "$mf_json"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$(mktemp -d "$T/chromium.XXXXXX")" --window-size=1320,1000 \
	--screenshot="$ART/report-demo-first-screen.png" "file://$HTML" >/dev/null 2>&1
check "screenshot of the first screen" test -s "$ART/report-demo-first-screen.png"

# ---- the same file with marks aggregated: the page says so, counts still add up ----
check "report --max-marks 50" "$TPMTRACE" report "$DB" --trace 1 --max-marks 50 -o "$T/agg.html"
browser "$T/agg.dom" "$ART/report-demo-aggregated.png" "$T/agg.log" "$T/agg.html"
dom_query "$T/agg.dom" >"$T/agg.facts"
expect_eq "aggregated flag" "$(val "$T/agg.facts" data-aggregated)" 1
expect_eq "aggregated note" "$(val "$T/agg.facts" aggregated-note)" 1
expect_eq "aggregated marks hold every command" "$(val "$T/agg.facts" marked)" "$n_cmd"
check "fewer marks than commands" test "$(val "$T/agg.facts" marks)" -lt "$n_cmd"
expect_eq "no console errors (aggregated)" "$(console_errors "$T/agg.log")" ""

# ---- a real capture ----
{
	PDB=$T/pcap.db
	check "import pcap" "$TPMTRACE" import pcap "$PCAP" --db "$PDB" --name capture
	check "report of the capture" "$TPMTRACE" report "$PDB" --profile slb9670-linux-integrity \
		-o "$T/pcap.html"
	browser "$T/pcap.dom" "$ART/report-pcap.png" "$T/pcap.log" "$T/pcap.html"
	dom_query "$T/pcap.dom" >"$T/pcap.facts"
	p_cmd=$(sqlite3 "$PDB" "SELECT count(*) FROM command")
	p_cc=$(sqlite3 "$PDB" "SELECT count(DISTINCT cc) FROM command WHERE latency_ns IS NOT NULL")
	[ "$p_cc" -gt 40 ] && p_cc=40
	expect_eq "pcap: script ran" "$(val "$T/pcap.facts" data-script-ok)" 1
	expect_eq "pcap: commands" "$(val "$T/pcap.facts" data-commands)" "$p_cmd"
	expect_eq "pcap: marks" "$(val "$T/pcap.facts" marked)" "$p_cmd"
	expect_eq "pcap: latency rows" "$(val "$T/pcap.facts" latrows)" "$p_cc"
	expect_eq "pcap: predicted bars" "$(val "$T/pcap.facts" bars:predicted)" "$n_pre"
	expect_eq "no console errors (pcap)" "$(console_errors "$T/pcap.log")" ""
	expect_eq "pcap: timeline on time" "$(val "$T/pcap.facts" axis)" time
	check "screenshot of the capture report" test -s "$ART/report-pcap.png"
	fit_probe "$T/pcap.html" "$T/pcap.fit.dom"
	expect_eq "pcap, 1280 px: no horizontal scrolling" "$(fit_attr "$T/pcap.fit.dom" overflow)" 0
	expect_eq "pcap, 1280 px: every chart label inside its chart" "$(fit_attr "$T/pcap.fit.dom" cut)" 0
	expect_eq "pcap, 1280 px: nothing reaches past the window" "$(fit_attr "$T/pcap.fit.dom" wide)" 0
}

# ---- errors ----
"$TPMTRACE" report "$DB" --trace 99 -o "$T/x.html" 2>"$T/err"
expect_eq "unknown trace exits 1" $? 1
check "names the trace" grep -q "no trace 99" "$T/err"
"$TPMTRACE" report "$DB" 2>/dev/null
expect_eq "no -o is a usage error" $? 2
"$TPMTRACE" report "$DB" -o /nonexistent/dir/x.html 2>"$T/err"
expect_eq "unwritable output exits 1" $? 1
# ---- a log without latencies: the axis is order, and the page says so ----
{
	LDB=$T/nolat.db
	sqlite3 "$DB" ".backup '$LDB'"
	sqlite3 "$LDB" "UPDATE command SET latency_ns=NULL WHERE trace_id=1"
	check "report of a trace without latencies" "$TPMTRACE" report "$LDB" --trace 1 -o "$T/nolat.html"
	browser "$T/nolat.dom" "$ART/report-nolat.png" "$T/nolat.log" "$T/nolat.html"
	dom_query "$T/nolat.dom" >"$T/nolat.facts"
	expect_eq "no latencies: axis is order" "$(val "$T/nolat.facts" axis)" order
	check "no latencies: says so" grep -q 'the axis is the order of its records' "$T/nolat.dom"
	check "no latencies: ticks are seq numbers" grep -qE '<span style="left:[0-9.]+%">#[0-9]+</span>' "$T/nolat.dom"
	check "no latencies: no span in ns" bash -c "! grep -q '<span>span</span>' '$T/nolat.dom'"
	expect_eq "no latencies: every command marked" "$(val "$T/nolat.facts" marks)" "$n_cmd"
}
echo "artifacts: $ART/report-demo.png $ART/report-demo-first-screen.png $ART/report-pcap.png"
finish
