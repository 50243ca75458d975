#!/usr/bin/env python3
"""`lagrange animate`: one self-contained HTML file that plays the motion.

- The file: valid HTML (parsed), self-contained (no script, link, image or
  import from the network), three.js's licence kept, the data decoded here
  the way the player decodes it and checked against the exact positions of
  the cart pendulum's bob (P = C + l*(sin theta, cos theta, 0)), frames at
  --fps, --trail and `draw` statements, refused names (exit 2), a failed
  run leaves no file, the default name MODEL.html. Release and sanitized
  binaries write the same bytes.
- The size bound: a 60 s run of the 40-link chain (bench/models.py) stays
  under 5 MB.
- `draw` shapes (sphere, capsule, cylinder, disk, box) and URDF visuals
  reach the data; the bicycle's draws leave its equations as they were.
- In a real browser (Debian's chromium, headless): for a double pendulum, a
  rigid body and a constrained particle, screenshots at #t=0.5 and #t=2:
  the page reports ready and paused at that time, no console error, the
  canvas is not blank, and the two pictures differ. A spinning wheel (a
  `draw disk`) seen face-on (#view=z) is round (its drawn extents in x and
  y agree within 4%) and edge-on (#view=x) thin; a pendulum under gravity
  along +x hangs below its pivot in the picture (up is against gravity);
  the bicycle and the URDF arm draw without an error.

usage: test_animate.py LAGRANGE [SANITIZED_LAGRANGE]"""
import html.parser, json, math, os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngread  # noqa: E402

BINS = [os.path.abspath(b) for b in sys.argv[1:]] or ["build/lagrange"]
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EX = os.path.join(ROOT, "examples")
CART = os.path.join(EX, "cart_pendulum.lag")
# x'' = x^3 escapes to infinity in finite time, drawn as a point on a line
BLOWUP = """coordinates x
parameters m = 1
frame N
point O
point P = O + x*N.x
particle P mass m
V = -x^4/4
initial x = 1, x' = 1
simulate 0 to 5 step 0.01
"""
# a wheel spinning about its axle N.z, drawn as a disk (no gravity)
WHEEL = """coordinates theta
parameters m = 1, r = 0.3
frame N
frame W = rotate(N, N.z, theta)
point O
body W mass m at O inertia (m*r^2/4, m*r^2/4, m*r^2/2)
initial theta' = 2
simulate 0 to 3 step 0.01
draw disk O in W axis z radius r width 0.02
"""
# a pendulum whose gravity points along +x: its pivot drawn as a box
HANG = """coordinates theta
parameters m = 1, l = 1, g = 9.81
frame N
frame A = rotate(N, N.z, theta)
point O
point P = O + l*A.x
particle P mass m
gravity g*N.x
initial theta = 0.2
simulate 0 to 3 step 0.01
draw box O in N size 0.15, 0.15, 0.15
"""
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else " " + str(detail)[:800]))


def run(binary, *args, cwd=None, timeout=300):
    r = subprocess.run([binary, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout)
    if "Sanitizer" in r.stderr or "runtime error" in r.stderr:
        check(f"sanitizer-clean {args}", False, r.stderr)
    return r


# ---- the file -------------------------------------------------------------------------------
class Page(html.parser.HTMLParser):
    """Tags (balanced where they must be), script bodies, network references."""
    VOID = {"meta", "input", "br", "img", "link", "hr", "source", "option"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.scripts, self.remote, self.ids = [], [], [], [], {}
        self.doctype = False
        self._script = None

    def handle_decl(self, decl):
        self.doctype |= decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("src", "href", "data", "action"):
            if key in a and re.match(r"\s*(https?:)?//", a[key] or ""):
                self.remote.append((tag, a[key]))
        if "id" in a:
            self.ids[a["id"]] = tag
        if tag == "script":
            self._script = [a.get("type", ""), a.get("id", ""), ""]
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()
        if tag == "script":
            self.scripts.append(tuple(self._script))
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self._script[2] += data


def parse(path):
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    p.close()
    return p


def decode(d):
    """The player's decoding: frames x channels, in model units."""
    nch, nf, var = d["channels"], d["frames"], d["varying"]
    cur, out, pos = list(d["base"]), [], 0
    npos = 3 * len(d["points"])
    for k in range(nf):
        if k:
            for c in var:
                cur[c] += d["delta"][pos]
                pos += 1
        out.append([v * (d["unit"] if c < npos else d["qunit"]) for c, v in enumerate(cur)])
    return out


def data_of(page):
    for kind, ident, body in page.scripts:
        if ident == "lg-data":
            return json.loads(body)
    return None


def file_checks(L, tag, d):
    out = os.path.join(d, "cart.html")
    r = run(L, "animate", CART, "--tf", "2", "--out", out)
    ok = r.returncode == 0 and os.path.exists(out)
    check(f"{tag}: animate writes the HTML and says so", ok and "wrote" in r.stderr, r.stderr)
    if not ok:
        return None
    page = parse(out)
    text = open(out, encoding="utf-8").read()
    check(f"{tag}: valid HTML: doctype, balanced elements, the player's elements",
          page.doctype and not page.errors and not page.stack and
          all(i in page.ids for i in ("lg-view", "lg-play", "lg-time", "lg-speed", "lg-status")),
          (page.errors, page.stack, page.ids))
    kinds = [k for k, _, _ in page.scripts]
    check(f"{tag}: self-contained: no network reference, no external script, no import",
          not page.remote and not re.search(r"<script[^>]*\bsrc\s*=", text) and
          not re.search(r"\bimport\s*\(|^\s*import\s", text, re.M) and
          "<link" not in text, page.remote)
    lic = [b for k, i, b in page.scripts if i == "three-licence"]
    three = [b for k, i, b in page.scripts if "THREE.OrbitControls" in b or "REVISION" in b]
    check(f"{tag}: three.js and OrbitControls embedded, with their licence and version",
          len(three) >= 2 and lic and "Permission is hereby granted" in lic[0] and
          "libjs-three 111" in lic[0] and kinds.count("text/plain") == 1, kinds)
    data = data_of(page)
    check(f"{tag}: the data: 2 s at 60 fps is 121 frames, 3 points, segments to the "
          "points they were located from",
          data and data["frames"] == 121 and data["fps"] == 60 and
          [p["name"] for p in data["points"]] == ["O", "C", "P"] and
          sorted(map(tuple, data["segments"])) == [(1, 0), (2, 1)], data and data.get("segments"))
    # the bob's position against the exact kinematics at the simulated state
    csv = run(L, "simulate", CART, "--tf", "2", "--dt", repr(1 / 60))
    rows = [dict(zip(csv.stdout.splitlines()[0].split(","), map(float, line.split(","))))
            for line in csv.stdout.splitlines()[1:]]
    frames = decode(data) if data else []
    worst = 0.0
    for k, row in enumerate(rows[:len(frames)]):
        th, x = row["theta"], row["x"]
        want = (x + 0.8 * math.sin(th), 0.8 * math.cos(th), 0.0)
        got = frames[k][6:9]
        worst = max(worst, max(abs(a - b) for a, b in zip(got, want)))
    check(f"{tag}: decoded positions = exact kinematics at each frame (max error {worst:.1e})",
          len(rows) == 121 and len(frames) == 121 and worst < 5e-4, (len(rows), len(frames)))
    return text


def option_checks(L, tag, d):
    out = os.path.join(d, "f.html")
    r = run(L, "animate", CART, "--tf", "2", "--fps", "30", "--trail", "P, C", "--out", out)
    data = data_of(parse(out)) if r.returncode == 0 else None
    check(f"{tag}: --fps 30 gives 61 frames; --trail P, C draws their trails",
          data and data["frames"] == 61 and sorted(data["trails"]) == [1, 2], r.stderr)
    os.remove(out) if os.path.exists(out) else None
    r = run(L, "animate", CART, "--tf", "1", "--trail", "Q", "--out", out)
    check(f"{tag}: --trail Q (no such point) is exit 2 naming the points, no file",
          r.returncode == 2 and "'Q'" in r.stderr and "O C P" in r.stderr and
          not os.path.exists(out), r.stderr)
    r = run(L, "animate", CART, "--tf", "1", "--fps", "0", "--out", out)
    check(f"{tag}: --fps 0 is exit 2", r.returncode == 2 and not os.path.exists(out), r.stderr)
    model = os.path.join(d, "drawn.lag")
    open(model, "w").write(open(CART).read() + "draw segment O P\ndraw trail P\n")
    r = run(L, "animate", model, "--tf", "1", "--out", out)
    data = data_of(parse(out)) if r.returncode == 0 else None
    check(f"{tag}: draw segment O P and draw trail P reach the data",
          data and [0, 2] in data["segments"] and data["trails"] == [2], r.stderr)
    for bad, pos, what in (("draw segment P\n", "14:6:", "joins two points"),
                           ("draw circle P\n", "14:6:", "unknown drawing"),
                           ("draw trail x\n", "14:12:", "not a point")):
        open(model, "w").write(open(CART).read() + bad)
        r = run(L, "eom", model)
        check(f"{tag}: {bad.strip()!r} is an error at {pos}", r.returncode == 1 and
              f"drawn.lag:{pos}" in r.stderr and what in r.stderr, r.stderr)
    blowup = os.path.join(d, "blowup.lag")
    open(blowup, "w").write(BLOWUP)
    failed_out = os.path.join(d, "blowup.html")
    r = run(L, "animate", blowup, "--out", failed_out)
    check(f"{tag}: a failed run is exit 1 and leaves no HTML, nor a temporary",
          r.returncode == 1 and not os.path.exists(failed_out) and
          not [f for f in os.listdir(d) if f.startswith(".blowup")], r.stderr[-300:])
    r = run(L, "animate", CART, "--tf", "0.5", "--out", os.path.join(d, "no", "such", "x.html"))
    check(f"{tag}: an --out folder that does not exist is exit 1 before simulating",
          r.returncode == 1 and "no/such" in r.stderr and "simulated" not in r.stderr, r.stderr)
    r = run(L, "animate", CART, "--tf", "0.5", cwd=d)
    check(f"{tag}: without --out the file is MODEL.html in the current folder",
          r.returncode == 0 and os.path.exists(os.path.join(d, "cart_pendulum.html")), r.stderr)


def shape_checks(L, tag, d):
    bike = os.path.join(EX, "whipple_bicycle.lag")
    plain = os.path.join(d, "bike_plain.lag")
    open(plain, "w").write("".join(line for line in open(bike) if not line.startswith("draw ")))
    a, b = run(L, "eom", bike), run(L, "eom", plain)
    check(f"{tag}: the bicycle's draw statements leave its equations as they were",
          a.returncode == 0 and a.stdout == b.stdout and "draw disk" in open(bike).read(),
          a.stderr)
    out = os.path.join(d, "bike.html")
    r = run(L, "animate", bike, "--tf", "0.5", "--out", out)
    data = data_of(parse(out)) if r.returncode == 0 else None
    shapes = data["shapes"] if data else []
    check(f"{tag}: the bicycle's shapes reach the data: two disks about their frame's y, "
          "three capsules, a sphere; a channel per quaternion",
          [x["kind"] for x in shapes] == ["disk", "disk", "capsule", "capsule", "capsule",
                                          "sphere"] and
          shapes[0]["axis"] == 1 and shapes[0]["size"][0] == 0.3 and shapes[1]["size"][0] == 0.35
          and data["channels"] == 3 * len(data["points"]) + 4 * (len(data["bodies"]) + 6) and
          data["up"] == [0, 0, -1], r.stderr if not data else shapes)
    out = os.path.join(d, "arm3.html")
    r = run(L, "animate", os.path.join(EX, "arm3.urdf"), "--tf", "0.5", "--out", out)
    data = data_of(parse(out)) if r.returncode == 0 else None
    shapes = data["shapes"] if data else []
    check(f"{tag}: arm3.urdf's visuals are drawn: cylinders, boxes and a sphere at their origins",
          [x["kind"] for x in shapes] == ["cylinder", "cylinder", "cylinder", "box", "sphere",
                                          "box"] and shapes[0]["at"] == [0, 0, 0.05] and
          shapes[0]["size"][:2] == [0.12, 0.1] and shapes[3]["size"] == [0.06, 0.06, 0.4],
          r.stderr if not data else shapes)
    model = os.path.join(d, "shapes.lag")
    for bad, what in (("draw disk P radius 0.1\n", "needs a frame and an axis"),
                      ("draw capsule P radius 0.1\n", "needs two points"),
                      ("draw box P in N size 1, 2\n", "',' and the next"),
                      ("draw disk P in N axis w radius 1\n", "x, y or z")):
        open(model, "w").write(open(CART).read() + bad)
        r = run(L, "eom", model)
        check(f"{tag}: {bad.strip()!r} is an error at line 14", r.returncode == 1 and
              "shapes.lag:14:" in r.stderr and what in r.stderr, r.stderr)


def size_check(L, d):
    model = os.path.join(d, "chain40.lag")
    gen = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "models.py"), "chain", "40"],
                         capture_output=True, text=True)
    open(model, "w").write(gen.stdout)
    out = os.path.join(d, "chain40.html")
    r = run(L, "animate", model, "--tf", "60", "--dt", "0.05", "--rtol", "1e-4", "--atol", "1e-4",
            "--out", out)
    size = os.path.getsize(out) if os.path.exists(out) else -1
    data = data_of(parse(out)) if size > 0 else None
    check(f"a 60 s run of the 40-link chain: 3601 frames, 41 points, {size} bytes < 5 MB",
          r.returncode == 0 and 0 < size < 5e6 and data and data["frames"] == 3601 and
          len(data["points"]) == 41, r.stderr[-400:])


# ---- in a browser ----------------------------------------------------------------------------
def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def shoot(browser, html_path, t, png, profile):
    """Screenshot of html_path#t=T; returns the console lines."""
    r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu-sandbox",
                        "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
                        "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}",
                        "--window-size=640,480", "--hide-scrollbars", "--enable-logging=stderr",
                        "--v=0", f"--screenshot={png}", f"file://{html_path}#t={t}"],
                       capture_output=True, text=True, timeout=90)
    return [line for line in r.stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


def canvas_pixels(png):
    """Pixels of the 3D view (above the controls, below the title lines)."""
    w, h, rows = pngread.read(png)
    return [px for y in range(50, h - 50) for px in rows[y]]


def browser_checks(L, d):
    browser = chromium()
    if not browser:
        print("SKIP browser tests: chromium is not installed (scripts/install-deps.sh installs "
              "Debian's chromium)")
        return
    profile = os.path.join(d, "profile")
    for name, model in (("double pendulum", "double_rod_pendulum.lag"),
                        ("rigid body", "kane_rigid_body.lag"),
                        ("constrained particle", "particle_bowl.lag")):
        out = os.path.join(d, model.replace(".lag", ".html"))
        r = run(L, "animate", os.path.join(EX, model), "--tf", "3", "--out", out)
        if r.returncode != 0:
            check(f"browser: {name}: animate", False, r.stderr)
            continue
        shots, consoles = [], []
        for t in ("0.5", "2"):
            png = os.path.join(d, f"{model}-{t}.png")
            consoles.append(shoot(browser, out, t, png, profile))
            shots.append(canvas_pixels(png) if os.path.exists(png) else [])
        for t, lines in zip(("0.5", "2"), consoles):
            want = f"ready t={float(t):.3f}"
            check(f"browser: {name} at #t={t}: ready and paused there, no console error",
                  any(want in line and "paused" in line for line in lines) and
                  not any("error" in line.lower() or "Uncaught" in line for line in lines), lines)
        a, b = shots
        bg = (244, 244, 240)
        drawn = [sum(1 for px in s if max(abs(px[i] - bg[i]) for i in range(3)) > 12)
                 for s in (a, b)]
        differ = sum(1 for p, q in zip(a, b) if max(abs(p[i] - q[i]) for i in range(3)) > 30)
        check(f"browser: {name}: the canvas is drawn ({drawn} non-background pixels)",
              len(a) > 0 and min(drawn) > 4000, drawn)
        check(f"browser: {name}: #t=0.5 and #t=2 differ ({differ} pixels)",
              len(a) == len(b) > 0 and differ > 200, differ)


def extents(png, keep):
    """The pixels of the 3D view that keep(r, g, b) accepts: (count, x0, x1, y0, y1,
    mean x, mean y)."""
    w, h, rows = pngread.read(png)
    xs, ys = [], []
    for y in range(50, h - 50):
        for x, px in enumerate(rows[y]):
            if keep(*px[:3]):
                xs.append(x)
                ys.append(y)
    if not xs:
        return (0, 0, 0, 0, 0, 0, 0)
    return (len(xs), min(xs), max(xs), min(ys), max(ys), sum(xs) / len(xs), sum(ys) / len(ys))


def shape_browser_checks(L, d, browser):
    profile = os.path.join(d, "profile")
    wheel = os.path.join(d, "wheel.lag")
    open(wheel, "w").write(WHEEL)
    out = os.path.join(d, "wheel.html")
    r = run(L, "animate", wheel, "--out", out)
    dark = lambda r_, g, b: max(r_, g, b) < 90  # the disk (0x2b2b30, lit)
    for t in ("0.4", "2"):
        png = os.path.join(d, f"wheel-z-{t}.png")
        lines = shoot(browser, out, f"{t}&view=z", png, profile) if r.returncode == 0 else []
        n, x0, x1, y0, y1, _, _ = extents(png, dark) if os.path.exists(png) else (0,) * 7
        wx, wy = x1 - x0 + 1, y1 - y0 + 1
        check(f"browser: a wheel face-on (#t={t}&view=z) is round: {wx} x {wy} pixels",
              any("ready" in x for x in lines) and n > 5000 and abs(wx / wy - 1) < 0.04 and
              abs(n / (math.pi * wx * wy / 4) - 1) < 0.05, (lines, n, wx, wy))
    png = os.path.join(d, "wheel-x.png")
    lines = shoot(browser, out, "1&view=x", png, profile) if r.returncode == 0 else []
    n, x0, x1, y0, y1, _, _ = extents(png, dark) if os.path.exists(png) else (0,) * 7
    wx, wy = x1 - x0 + 1, y1 - y0 + 1
    check(f"browser: the same wheel edge-on (view=x) is thin: {wx} x {wy} pixels",
          any("ready" in x for x in lines) and n > 200 and wy < 0.1 * wx, (lines, n, wx, wy))
    hang = os.path.join(d, "hang.lag")
    open(hang, "w").write(HANG)
    out = os.path.join(d, "hang.html")
    r = run(L, "animate", hang, "--out", out)
    png = os.path.join(d, "hang.png")
    lines = shoot(browser, out, "0", png, profile) if r.returncode == 0 else []
    ok = os.path.exists(png)
    bob = extents(png, lambda r_, g, b: r_ > 150 and g < 110 and b < 100) if ok else (0,) * 7
    pivot = extents(png, lambda r_, g, b: g > r_ + 30 and g > b + 20 and g < 200) if ok else (0,) * 7
    check(f"browser: gravity along +x: the bob (y = {bob[6]:.0f}) hangs below its pivot "
          f"(y = {pivot[6]:.0f}) in the picture",
          any("ready" in x for x in lines) and bob[0] > 100 and pivot[0] > 100 and
          bob[6] > pivot[6] + 100, (lines, bob, pivot))
    for name, model in (("the bicycle", os.path.join(EX, "whipple_bicycle.lag")),
                        ("the URDF arm", os.path.join(EX, "arm3.urdf"))):
        out = os.path.join(d, os.path.basename(model) + ".html")
        r = run(L, "animate", model, "--tf", "2", "--out", out)
        png = out + ".png"
        lines = shoot(browser, out, "1", png, profile) if r.returncode == 0 else []
        n = extents(png, lambda r_, g, b: max(r_, g, b) < 150 or abs(r_ - g) > 40 or
                    abs(g - b) > 40)[0] if os.path.exists(png) else 0
        check(f"browser: {name} draws its shapes without an error ({n} pixels)",
              any("ready t=1.000" in x for x in lines) and
              not any("error" in x.lower() or "Uncaught" in x for x in lines) and n > 300,
              (r.stderr[-300:], lines, n))


with tempfile.TemporaryDirectory() as d:
    texts = []
    for i, b in enumerate(BINS):
        tag = "release" if i == 0 else "sanitized"
        sub = os.path.join(d, tag)
        os.mkdir(sub)
        texts.append(file_checks(b, tag, sub))
        option_checks(b, tag, sub)
        shape_checks(b, tag, sub)
    if len(texts) == 2:
        check("release and sanitized binaries write the same HTML",
              texts[0] is not None and texts[0] == texts[1])
    size_check(BINS[0], d)
    browser_checks(BINS[0], d)
    if chromium():
        shape_browser_checks(BINS[0], d, chromium())
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
