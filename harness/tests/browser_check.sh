#!/usr/bin/env bash
# browser_check.sh DIR: loads DIR/index.html in headless Chromium, as a
# reader opens a report from disk, and says whether every image on the
# page was loaded and drawn (complete, with a width) and every link to a
# file leads to one. Prints one line: "N images, M not loaded[: src...];
# K links, L dead[: href...]"; exits 0 when none is broken, 1 when some
# are, 2 when the page or the browser is missing.
set -u
dir=$1
page=$dir/index.html
[ -s "$page" ] || { echo "no page $page"; exit 2; }
browser=$(command -v chromium || command -v chromium-browser) || { echo "no chromium"; exit 2; }

# The page itself, with a script that reports once everything loaded.
check=$dir/.browser-check.html
trap 'rm -f "$check"' EXIT
{
	sed 's#</body></html>##' "$page"
	cat <<'HTML'
<script>
window.addEventListener('load', () => {
  const imgs = Array.from(document.images);
  const bad = imgs.filter(i => !(i.complete && i.naturalWidth > 0))
    .map(i => i.getAttribute('src'));
  const pre = document.createElement('pre');
  pre.textContent = 'AIRLAB-CHECK ' + JSON.stringify({images: imgs.length, broken: bad});
  document.body.appendChild(pre);
});
</script>
</body></html>
HTML
} >"$check"
# As root Chromium needs --no-sandbox; its own chatter goes to stderr.
dom=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
	--allow-file-access-from-files --virtual-time-budget=15000 \
	--dump-dom "file://$(realpath "$check")" 2>/dev/null)
result=$(sed -n 's/.*AIRLAB-CHECK \({.*}\).*/\1/p' <<<"$dom" | head -n 1 |
	sed 's/&quot;/"/g')
[ -n "$result" ] || { echo "chromium did not load $page"; exit 2; }
python3 - "$dir" "$page" "$result" <<'PY'
import html.parser, json, os, sys, urllib.parse
d, page, result = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs = []
    def handle_starttag(self, tag, attrs):
        href = dict(attrs).get("href")
        if tag == "a" and href and "://" not in href and not href.startswith("#"):
            self.hrefs.append(href)
p = Links()
p.feed(open(page).read())
dead = [h for h in p.hrefs
        if not os.path.exists(os.path.join(d, urllib.parse.unquote(h)))]
line = "%d images, %d not loaded" % (result["images"], len(result["broken"]))
if result["broken"]:
    line += ": " + " ".join(result["broken"])
line += "; %d links, %d dead" % (len(p.hrefs), len(dead))
if dead:
    line += ": " + " ".join(dead)
print(line)
sys.exit(1 if result["broken"] or dead or result["images"] == 0 else 0)
PY
