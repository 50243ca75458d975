"""A URDF <mesh> visual drawn as its bounding box (issue 26).

The test writes tiny meshes whose vertices it knows (binary STL, ASCII STL,
Wavefront OBJ, COLLADA with a unit), in a temporary folder with a ROS
package layout, and checks the `draw box` that `lagrange animate` draws for
each: edges = the vertices' extents times the mesh's scale, centre = their
box's centre times the scale added to the visual origin's offset, measured
along the visual's axes (R^T xyz for a turned origin, R = Rz Ry Rx of its
rpy, computed here). filename resolves relative to the URDF, file://,
package:// next to the URDF, above it, and through ROS_PACKAGE_PATH. Each
mesh that cannot be read (missing, unknown extension, malformed, empty,
NaN, a URL, a FIFO, a folder, entities) is left out with a note at the
<mesh>'s line:col that says why and how to fix it, and the robot still
runs; a COLLADA geometry instanced too often is refused by a work budget;
the hostile cases run under the sanitized binary too when given.
usage: test_urdf_mesh.py [build/lagrange [build-san/lagrange]]
Ends "N passed, N failed"."""
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lagrange")
SAN = sys.argv[2] if len(sys.argv) > 2 else None
passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL " + what + ("\n    " + str(detail) if detail else ""))


def run(binary, *args, env=None):
    e = dict(os.environ)
    e.pop("ROS_PACKAGE_PATH", None)
    e.update(env or {})
    return subprocess.run([binary] + list(args), capture_output=True, env=e, timeout=300,
                          encoding="utf-8", errors="replace")


# ---- tiny meshes --------------------------------------------------------------------
# two triangles whose vertices span x in [-1, 3], y in [2, 4], z in [0.5, 1.5]
TRIS = [((-1, 2, 0.5), (3, 2, 0.5), (3, 4, 1.5)), ((-1, 2, 0.5), (3, 4, 1.5), (0, 3, 1))]
LO, HI = (-1, 2, 0.5), (3, 4, 1.5)


def binary_stl(tris, header=b"binary"):
    out = header.ljust(80, b" ") + struct.pack("<I", len(tris))
    for t in tris:
        out += struct.pack("<3f", 0, 0, 1)
        for v in t:
            out += struct.pack("<3f", *v)
        out += b"\0\0"
    return out


def ascii_stl(tris):
    s = "solid test\n"
    for t in tris:
        s += "  facet normal 0 0 1\n    outer loop\n"
        for v in t:
            s += "      vertex %r %r %r\n" % v
        s += "    endloop\n  endfacet\n"
    return s + "endsolid test\n"


def obj(tris):
    s = "# a comment\no thing\n"
    for t in tris:
        for v in t:
            s += "v %r %r %r\n" % v
    s += "vn 0 0 1\nvt 0.5 0.5\nf 1 2 3\nf 4 5 6\n"
    return s


def dae(tris, meter, stride=3):
    nums = []
    for t in tris:
        for v in t:
            nums += [repr(float(c)) for c in v] + ["7"] * (stride - 3)
    return ('<?xml version="1.0" encoding="utf-8"?>\n'
            '<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">\n'
            '<asset><unit name="centimeter" meter="%s"/><up_axis>Z_UP</up_axis></asset>\n'
            '<library_geometries><geometry id="g"><mesh>\n'
            '<source id="g-normals"><float_array id="n" count="3">100 100 100</float_array>'
            '</source>\n'
            '<source id="g-positions"><float_array id="p" count="%d">%s</float_array>\n'
            '<technique_common><accessor source="#p" count="%d" stride="%d"/>'
            '</technique_common></source>\n'
            '<vertices id="g-vertices"><input semantic="POSITION" source="#g-positions"/>'
            '</vertices>\n'
            '<triangles count="%d"><input semantic="VERTEX" source="#g-vertices" offset="0"/>'
            '<p>0 1 2 3 4 5</p></triangles>\n'
            '</mesh></geometry></library_geometries>\n</COLLADA>\n'
            % (meter, len(nums), " ".join(nums), len(nums) // stride, stride, len(tris)))


def rpy_matrix(r, p, y):
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), \
        math.sin(y)
    return [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr]]


def want_box(lo, hi, scale=(1, 1, 1), xyz=(0, 0, 0), rpy=(0, 0, 0), unit=1.0):
    size = [(hi[i] - lo[i]) * unit * abs(scale[i]) for i in range(3)]
    c = [(hi[i] + lo[i]) / 2 * unit * scale[i] for i in range(3)]
    R = rpy_matrix(*rpy)
    off = [sum(R[k][i] * xyz[k] for k in range(3)) for i in range(3)]  # R^T xyz
    return size, [off[i] + c[i] for i in range(3)]


def shapes_of(html):
    text = open(html).read()
    m = re.search(r'id="lg-data">\n(.*?)\n</script>', text, re.S)
    return json.loads(m.group(1))["shapes"] if m else None


def close(a, b, tol=1e-5):
    return len(a) == len(b) and all(abs(x - y) <= tol * max(1, abs(y)) for x, y in zip(a, b))


LINK = ('<link name="%s"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/>'
        '</inertial>\n%s</link>\n')


def robot(visuals):
    """A two-link robot whose moving link b has these <visual>s, one a line
    (from line 3 on); returns the URDF text."""
    body = "".join(v + "\n" for v in visuals)
    return ('<robot name="m">\n<link name="a"/>\n' + LINK % ("b", body) +
            '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
            '<axis xyz="0 1 0"/></joint>\n</robot>\n')


def visual(filename, xyz=None, rpy=None, scale=None):
    o = ""
    if xyz or rpy:
        o = '<origin%s%s/>' % (' xyz="%s"' % " ".join(map(repr, xyz)) if xyz else "",
                               ' rpy="%s"' % " ".join(map(repr, rpy)) if rpy else "")
    sc = ' scale="%s"' % scale if scale is not None else ""
    return '<visual>%s<geometry><mesh filename="%s"%s/></geometry></visual>' % (o, filename, sc)


# the example robot of the tests (tests/cli/urdf/mesh_arm.urdf): its upper
# arm's OBJ spans 0.1 x 0.1 x 0.5 from z = 0, its forearm's ASCII STL
# 0.08 x 0.08 x 0.4 from z = 0, turned over (rpy pi 0 0) at z = 0.4: the
# box's centre is at z = 0.4 - 0.2 along the link, -0.2 along the visual's z
with tempfile.TemporaryDirectory() as tmp:
    html = os.path.join(tmp, "arm.html")
    r = run(BIN, "animate", os.path.join(ROOT, "tests", "cli", "urdf", "mesh_arm.urdf"), "--tf",
            "0.05", "--out", html)
    sh = shapes_of(html) if r.returncode == 0 else None
    want = [([0.1, 0.1, 0.5], [0, 0, 0.25]), ([0.08, 0.08, 0.4], [0, 0, -0.2])]
    check(sh is not None and len(sh) == 2 and
          all(close(x["size"], w[0]) and close(x["at"], w[1]) for x, w in zip(sh, want)) and
          " note: " not in r.stderr, "tests/cli/urdf/mesh_arm.urdf: its OBJ and STL as boxes",
          (sh, r.stderr[-400:]))

with tempfile.TemporaryDirectory() as tmp:
    # the layout: tmp/ws/src/robot_pkg/{urdf/robot.urdf, meshes/...}, a package
    # next to the URDF (tmp/ws/src/robot_pkg/urdf/near_pkg), one on
    # ROS_PACKAGE_PATH only (tmp/elsewhere/far_pkg)
    pkg = os.path.join(tmp, "ws", "src", "robot_pkg")
    udir = os.path.join(pkg, "urdf")
    for d in (os.path.join(pkg, "meshes"), os.path.join(udir, "near_pkg", "m"),
              os.path.join(udir, "sub"), os.path.join(tmp, "elsewhere", "far_pkg", "m")):
        os.makedirs(d)

    def put(path, data):
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path

    put(os.path.join(pkg, "meshes", "bin.stl"), binary_stl(TRIS))
    # a binary STL whose header starts with "solid": its size says binary
    put(os.path.join(udir, "sub", "solid_bin.STL"), binary_stl(TRIS, b"solid but binary"))
    put(os.path.join(udir, "sub", "ascii.stl"), ascii_stl(TRIS))
    obj_path = put(os.path.join(tmp, "abs.obj"), obj(TRIS))
    put(os.path.join(udir, "near_pkg", "m", "cm.dae"), dae(TRIS, "0.01", stride=4))
    put(os.path.join(tmp, "elsewhere", "far_pkg", "m", "far.obj"), obj(TRIS))

    rpy = (0.3, -0.7, 1.1)
    good = [
        (visual("package://robot_pkg/meshes/bin.stl"), want_box(LO, HI)),
        (visual("sub/solid_bin.STL", xyz=(0.1, 0.2, 0.3), scale="2 0.5 -1"),
         want_box(LO, HI, (2, 0.5, -1), (0.1, 0.2, 0.3))),
        (visual("sub/ascii.stl", xyz=(0.5, -0.25, 2), rpy=rpy, scale="0.5 0.5 0.5"),
         want_box(LO, HI, (0.5, 0.5, 0.5), (0.5, -0.25, 2), rpy)),
        (visual("file://" + obj_path), want_box(LO, HI)),
        (visual("package://near_pkg/m/cm.dae", rpy=(0, 0, 1.5707963267948966)),
         want_box(LO, HI, unit=0.01)),
        (visual("package://far_pkg/m/far.obj", xyz=(0, 0, 1)), want_box(LO, HI, xyz=(0, 0, 1))),
    ]
    urdf = put(os.path.join(udir, "robot.urdf"), robot([v for v, _ in good]))
    html = os.path.join(tmp, "robot.html")
    far = os.path.join(tmp, "nothing") + ":" + os.path.join(tmp, "elsewhere") + "/"
    r = run(BIN, "animate", urdf, "--tf", "0.02", "--out", html, env={"ROS_PACKAGE_PATH": far})
    check(r.returncode == 0, "a robot with mesh visuals animates", r.stderr[-800:])
    shapes = shapes_of(html) if r.returncode == 0 else None
    names = ["binary STL through package:// two folders above the URDF",
             "binary STL whose header starts with 'solid', relative, scaled (a negative scale "
             "too), offset",
             "ASCII STL, scaled, at a turned visual origin (offset along the visual's axes)",
             "OBJ by file:// (normals, texture coordinates and faces ignored)",
             "COLLADA with <unit meter=0.01> and stride 4 through package:// next to the URDF, "
             "turned about z",
             "OBJ through ROS_PACKAGE_PATH"]
    for k, ((_, (size, at)), what) in enumerate(zip(good, names)):
        got = shapes[k] if shapes and k < len(shapes) else None
        ok = got is not None and got["kind"] == "box" and close(got["size"], size) and \
            close(got["at"], at)
        check(ok, "mesh box: " + what, (got, size, at))
    check(shapes is not None and len(shapes) == len(good), "one box per mesh visual",
          shapes and len(shapes))
    check(" note: " not in r.stderr, "no note when every mesh is read", r.stderr[-600:])

    # the turned frame of the ASCII STL's box: rotate it back and the box's
    # centre lies at xyz + R c in the link's frame (R from the rpy here)
    if shapes and len(shapes) > 2:
        R = rpy_matrix(*rpy)
        at = shapes[2]["at"]
        world = [sum(R[i][k] * at[k] for k in range(3)) for i in range(3)]
        c = [(HI[i] + LO[i]) / 2 * 0.5 for i in range(3)]
        want = [(0.5, -0.25, 2)[i] + sum(R[i][k] * c[k] for k in range(3)) for i in range(3)]
        check(close(world, want, 1e-5), "the turned box's centre in the link frame is xyz + R c",
              (world, want))

    # without ROS_PACKAGE_PATH the far package is not found: a note, not an error
    r = run(BIN, "eval", urdf)
    check(r.returncode == 0 and "note: a <visual> of link 'b' is a mesh: not drawn" in r.stderr
          and "far_pkg" in r.stderr and "ROS_PACKAGE_PATH" in r.stderr,
          "a package not found is a note naming ROS_PACKAGE_PATH", r.stderr[-600:])

    # a COLLADA scene: nested nodes whose transforms compose (translate, rotate
    # in degrees, scale, matrix by rows), the geometry instanced twice, in cm
    def mmul(A, B):
        return [[sum(A[i][k] * B[k][j] for k in range(4)) for j in range(4)] for i in range(4)]

    def tr(x, y, z):
        return [[1, 0, 0, x], [0, 1, 0, y], [0, 0, 1, z], [0, 0, 0, 1]]
    rz90 = [[0, -1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    M = mmul(mmul(mmul(tr(0, 0, 10), rz90), [[2, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0],
                                             [0, 0, 0, 1]]), tr(5, 0, 0))
    pts = [v for t in TRIS for v in t]
    moved_pts = pts + [[sum(M[i][k] * (list(v) + [1])[k] for k in range(4)) for i in range(3)]
                       for v in pts]
    mlo = [min(p[i] for p in moved_pts) for i in range(3)]
    mhi = [max(p[i] for p in moved_pts) for i in range(3)]
    scene = ('<library_visual_scenes><visual_scene id="other"/><visual_scene id="s">'
             '<node><instance_geometry url="#g"/></node>'
             '<node><translate>0 0 10</translate><rotate>0 0 2 90</rotate>'
             '<node><scale>2 1 1</scale><matrix>1 0 0 5 0 1 0 0 0 0 1 0 0 0 0 1</matrix>'
             '<instance_geometry url="#g"/></node></node></visual_scene>'
             '</library_visual_scenes><scene><instance_visual_scene url="#s"/></scene>')
    put(os.path.join(udir, "moved.dae"), dae(TRIS, "0.01").replace("</COLLADA>",
                                                                   scene + "</COLLADA>"))
    # Y_UP and an <instance_node>: drawn as if Z_UP, without that node, with a note
    put(os.path.join(udir, "yup.dae"), dae(TRIS, "1").replace("Z_UP", "Y_UP").replace(
        "</COLLADA>", '<library_visual_scenes><visual_scene id="s"><node>'
        '<instance_geometry url="#g"/><instance_node url="#n"/></node></visual_scene>'
        '</library_visual_scenes></COLLADA>'))
    murdf = put(os.path.join(udir, "moved.urdf"), robot([visual("moved.dae"),
                                                         visual("yup.dae")]))
    mhtml = os.path.join(tmp, "moved.html")
    r = run(BIN, "animate", murdf, "--tf", "0.01", "--out", mhtml)
    sh = shapes_of(mhtml) if r.returncode == 0 else None
    size, at = want_box(mlo, mhi, unit=0.01)
    check(sh and len(sh) == 2 and close(sh[0]["size"], size) and close(sh[0]["at"], at) and
          "moved.urdf:4:" not in r.stderr,
          "COLLADA: the scene's node transforms composed down the tree, each instance counted",
          (sh, size, at, r.stderr[-500:]))
    size, at = want_box(LO, HI)
    check(sh and len(sh) == 2 and close(sh[1]["size"], size) and close(sh[1]["at"], at) and
          "moved.urdf:5:19: note: the mesh of a <visual> of link 'b' is drawn as its box without "
          "its COLLADA file's <up_axis> (Z_UP is assumed) and <lookat>, <skew> or <instance_node>"
          in r.stderr, "COLLADA: Y_UP and an <instance_node> are not applied, and a note says so",
          (sh, r.stderr[-500:]))

    # a model that imports the URDF: its meshes are found from the URDF's folder
    lag = put(os.path.join(tmp, "imports.lag"), 'import "ws/src/robot_pkg/urdf/moved.urdf"\n'
              'initial j = 0.1\n')
    r = run(BIN, "animate", lag, "--tf", "0.01", "--out", mhtml)
    sh2 = shapes_of(mhtml) if r.returncode == 0 else None
    check(sh2 is not None and sh is not None and [x["size"] for x in sh2] ==
          [x["size"] for x in sh] and "moved.urdf:5:19: note:" in r.stderr,
          "import \"...urdf\" in a model: meshes relative to the URDF's folder, notes at its "
          "line:col", (sh2, r.stderr[-400:]))

    # a geometry instanced 1,500 times: refused by the work budget, not hours of work
    nums = " ".join("%d.25 %d.5 %d.75" % (i % 97, i % 89, i % 83) for i in range(3000))
    inst = "".join('<node><translate>%d 0 0</translate><instance_geometry url="#g"/></node>' % i
                   for i in range(1500))
    put(os.path.join(udir, "many.dae"),
        '<COLLADA><library_geometries><geometry id="g"><mesh><source id="p"><float_array>%s'
        '</float_array></source><vertices id="v"><input semantic="POSITION" source="#p"/>'
        '</vertices></mesh></geometry></library_geometries><library_visual_scenes>'
        '<visual_scene id="s">%s</visual_scene></library_visual_scenes></COLLADA>' % (nums, inst))
    r = run(BIN, "eval", put(os.path.join(udir, "many.urdf"), robot([visual("many.dae")])))
    check(r.returncode == 0 and "many.urdf:4:19: note: a <visual> of link 'b' is a mesh: not "
          "drawn (" in r.stderr and "too much work" in r.stderr,
          "a COLLADA geometry instanced too often is refused by a work budget", r.stderr[-400:])

    if SAN and os.path.exists(SAN):
        for u in (urdf, murdf):
            r = run(SAN, "animate", u, "--tf", "0.01", "--out", os.path.join(tmp, "san.html"),
                    env={"ROS_PACKAGE_PATH": far})
            check(r.returncode == 0 and "Sanitizer" not in r.stderr and "ERROR" not in r.stderr,
                  "sanitized: %s's meshes read without a report" % os.path.basename(u),
                  r.stderr[-600:])

    # ---- meshes that cannot be read: a note each, at the <mesh>'s line:col --------------
    bad = os.path.join(tmp, "bad")
    os.makedirs(os.path.join(bad, "folder.stl"))
    put(os.path.join(bad, "short.stl"), b"\x00" * 40)
    put(os.path.join(bad, "size.stl"), binary_stl(TRIS)[:-7])
    put(os.path.join(bad, "huge_count.stl"), binary_stl(TRIS)[:80] + struct.pack("<I", 2**32 - 1))
    put(os.path.join(bad, "nan.stl"), binary_stl([((0, 0, 0), (1, float("nan"), 0), (0, 1, 0))]))
    put(os.path.join(bad, "empty.stl"), binary_stl([]))
    put(os.path.join(bad, "vertex.stl"), "solid x\nfacet normal 0 0 1\nouter loop\n"
        "vertex 1 2\nendloop\n")
    put(os.path.join(bad, "none.stl"), "solid x\nendsolid x\n")
    put(os.path.join(bad, "empty.obj"), "# only a comment\nvn 0 0 1\n")
    put(os.path.join(bad, "nan.obj"), "v 0 0 0\nv 1 nan 2\n")
    put(os.path.join(bad, "inf.obj"), "v 0 0 0\nv 1 1e999 2\n")
    put(os.path.join(bad, "word.obj"), "v 0 0 zero\n")
    put(os.path.join(bad, "bad.dae"), "<COLLADA><library_geometries>\n<mesh></COLLADA>\n")
    put(os.path.join(bad, "dtd.dae"), '<!DOCTYPE c [<!ENTITY a "1 2 3">]>\n<COLLADA/>\n')
    put(os.path.join(bad, "nomesh.dae"), "<COLLADA><asset/></COLLADA>\n")
    put(os.path.join(bad, "unit.dae"), dae(TRIS, "-1"))
    put(os.path.join(bad, "odd.dae"), dae(TRIS, "1").replace("0.5 3.0", "0.5", 1))
    put(os.path.join(bad, "thing.ply"), "ply\n")
    put(os.path.join(bad, "ok.obj"), obj(TRIS))
    fifo = os.path.join(bad, "fifo.stl")
    os.mkfifo(fifo)
    cases = [  # (filename, scale, words the note must hold)
        ("missing.stl", None, ["cannot open", "missing.stl", "No such file", "check the filename"]),
        ("thing.ply", None, ["not a .stl, .obj or .dae", "convert"]),
        ("folder.stl", None, ["not a regular file"]),
        ("fifo.stl", None, ["not a regular file"]),
        ("short.stl", None, ["40 bytes", "too short", "repair"]),
        ("size.stl", None, ["84 + 50*2", "repair"]),
        ("huge_count.stl", None, ["4294967295 triangles", "repair"]),
        ("nan.stl", None, ["not finite", "repair"]),
        ("empty.stl", None, ["no vertex"]),
        ("vertex.stl", None, ["line 4", "three numbers"]),
        ("none.stl", None, ["no vertex"]),
        ("empty.obj", None, ["no vertex"]),
        ("nan.obj", None, ["line 2", "not finite"]),
        ("inf.obj", None, ["line 2", "not finite"]),
        ("word.obj", None, ["line 1", "three numbers"]),
        ("bad.dae", None, ["malformed XML", "line"]),
        ("dtd.dae", None, ["document type", "DOCTYPE"]),
        ("nomesh.dae", None, ["no <mesh> positions"]),
        ("unit.dae", None, ["meter=\"-1\"", "positive"]),
        ("odd.dae", None, ["not a multiple of its stride 3"]),
        ("http://example.com/x.stl", None, ["is a URL", "file path"]),
        ("package://x.stl", None, ["not package://PACKAGE/PATH"]),
        ("package://nope/x.stl", None, ["'nope'", "ROS_PACKAGE_PATH"]),
        ("", None, ["filename is empty"]),
        ("ok.obj", "1 2", ["scale=\"1 2\"", "three finite numbers"]),
        ("ok.obj", "1 2 nan", ["three finite numbers"]),
    ]
    text = robot([visual(f, scale=s) for f, s, _ in cases] +
                 ['<visual><geometry><mesh/></geometry></visual>'])
    burdf = put(os.path.join(bad, "bad.urdf"), text)
    lines = text.split("\n")
    for binary, tag in ((BIN, ""), (SAN, " (sanitized)")):
        if not binary or not os.path.exists(binary):
            continue
        r = subprocess.run([binary, "animate", burdf, "--tf", "0.01", "--out",
                            os.path.join(bad, "bad.html")], capture_output=True, timeout=600,
                           encoding="utf-8", errors="replace")
        check(r.returncode == 0, "a robot whose meshes cannot be read still runs" + tag,
              r.stderr[-800:])
        check("ERROR" not in r.stderr and "Sanitizer" not in r.stderr,
              "no sanitizer report" + tag, r.stderr[-800:])
        sh = shapes_of(os.path.join(bad, "bad.html")) if r.returncode == 0 else None
        check(sh == [], "no shape drawn for an unreadable mesh" + tag, sh)
        notes = [l for l in r.stderr.split("\n") if " note: " in l]
        for i, (f, s, words) in enumerate(cases + [(None, None, ["no filename"])]):
            ln = 3 + i + 1  # line 3 opens link b; the visuals follow, one a line
            col = lines[ln - 1].index("<mesh") + 1
            where = "%s:%d:%d: note: a <visual> of link 'b' is a mesh: not drawn (" % (burdf, ln,
                                                                                      col)
            mine = [n for n in notes if n.startswith(where)]
            ok = len(mine) == 1 and all(w in mine[0] for w in words)
            check(ok, "note for %r%s at its <mesh>'s line:col: %s" % (f, tag, ", ".join(words)),
                  mine or notes[:3])

print("\n%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
