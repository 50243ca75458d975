"""Model.scene and Model.scene_info (lg_scene_many and the scene queries)
against hand-computed positions of the cart pendulum and against what
`lagrange animate` writes: the points, bodies and segments of its data,
its first frame (the initial state, exact up to the data's quantization)
for every example under both methods, and the cart pendulum's whole
trajectory."""
import glob
import json
import math
import os
import re
import subprocess
import tempfile

import numpy as np

import lagrange

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("LAGRANGE_CLI", os.path.join(ROOT, "build", "lagrange"))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.lag")))
CART = os.path.join(ROOT, "examples", "cart_pendulum.lag")


def test_scene_pendulum_by_hand():
    m = lagrange.load(CART)
    info = m.scene_info()
    assert [p["name"] for p in info["points"]] == ["O", "C", "P"]
    assert [p["from"] for p in info["points"]] == [-1, 0, 1]
    assert [p["particle"] for p in info["points"]] == [False, True, True]
    assert info["bodies"] == [] and info["draws"] == []
    # P = C + l*(sin theta, cos theta, 0), C = (x, 0, 0)
    q = np.array([[0.0, 0.1], [0.5, -1.2], [-2.0, 3.0]])
    for l, params in ((0.8, None), (1.7, {"l": 1.7})):
        s = m.scene(q, params=params)
        assert s["points"] == ["O", "C", "P"] and s["positions"].shape == (3, 3, 3)
        for k, (x, th) in enumerate(q):
            want = [[0, 0, 0], [x, 0, 0], [x + l * math.sin(th), l * math.cos(th), 0]]
            assert np.allclose(s["positions"][k], want, rtol=0, atol=1e-15)
    one = m.scene({"theta": 0.3})
    assert one["positions"].shape == (3, 3)
    assert np.allclose(one["positions"][2], [0.8 * math.sin(0.3), 0.8 * math.cos(0.3), 0])
    assert np.array_equal(one["gravity"], [0, -9.81, 0])
    assert one["rotations"].shape == (0, 3, 3) and one["inertia"].shape == (0, 7)
    q0, _ = m.initial_state()
    assert np.array_equal(m.scene()["positions"], m.scene(q0)["positions"])


def _animate(path, method, d, tf="0.5"):
    out = os.path.join(d, "a.html")
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([CLI, "animate", path, "--method", method, "--tf", tf, "--out", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    text = open(out, encoding="utf-8").read()
    body = re.search(r'<script type="application/json" id="lg-data">\n(.*?)\n</script>', text,
                     re.S)
    return json.loads(body.group(1))


def _frames(data):
    """The player's decoding: frames x channels, in model units."""
    cur, out, pos = list(data["base"]), [], 0
    npos = 3 * len(data["points"])
    for k in range(data["frames"]):
        if k:
            for c in data["varying"]:
                cur[c] += data["delta"][pos]
                pos += 1
        out.append([v * (data["unit"] if c < npos else data["qunit"])
                    for c, v in enumerate(cur)])
    return np.array(out)


def _quaternion(R):
    """animate's (x, y, z, w) of W = R^T (cli_animate.c)."""
    W = np.asarray(R).T
    tr = W[0, 0] + W[1, 1] + W[2, 2]
    if tr > 0:
        s = 2 * math.sqrt(tr + 1)
        return [(W[2, 1] - W[1, 2]) / s, (W[0, 2] - W[2, 0]) / s, (W[1, 0] - W[0, 1]) / s, s / 4]
    if W[0, 0] > W[1, 1] and W[0, 0] > W[2, 2]:
        s = 2 * math.sqrt(1 + W[0, 0] - W[1, 1] - W[2, 2])
        return [s / 4, (W[0, 1] + W[1, 0]) / s, (W[0, 2] + W[2, 0]) / s, (W[2, 1] - W[1, 2]) / s]
    if W[1, 1] > W[2, 2]:
        s = 2 * math.sqrt(1 + W[1, 1] - W[0, 0] - W[2, 2])
        return [(W[0, 1] + W[1, 0]) / s, s / 4, (W[1, 2] + W[2, 1]) / s, (W[0, 2] - W[2, 0]) / s]
    s = 2 * math.sqrt(1 + W[2, 2] - W[0, 0] - W[1, 1])
    return [(W[0, 2] + W[2, 0]) / s, (W[1, 2] + W[2, 1]) / s, s / 4, (W[1, 0] - W[0, 1]) / s]


def test_scene_matches_animate_first_frame():
    """Every example, both methods: the data's points, bodies and
    segments are scene_info's; its first frame is scene() at the initial
    state (positions within half the data's unit, quaternions within half
    of 1e-4)."""
    checked = 0
    with tempfile.TemporaryDirectory() as d:
        for path in EXAMPLES:
            for method in ("lagrange", "kane"):
                data = _animate(path, method, d)
                if data is None:  # (a model animate refuses, or a failed run)
                    continue
                try:
                    m = lagrange.load(path, method=method)
                except lagrange.ModelError:
                    continue
                info = m.scene_info()
                assert data["points"] == info["points"], path
                assert [(b["frame"], b["point"]) for b in data["bodies"]] == \
                    [(b["frame"], b["point"]) for b in info["bodies"]], path
                segs = [[i, p["from"]] for i, p in enumerate(info["points"]) if p["from"] >= 0]
                segs += [[dr[1], dr[2]] for dr in info["draws"] if dr[0] == "segment"]
                assert data["segments"] == segs, path
                s = m.scene(t=data["t0"])
                f0 = _frames(data)[0]
                npt = len(info["points"])
                pos = np.asarray(s["positions"]).reshape(-1)
                assert np.max(np.abs(f0[:3 * npt] - pos), initial=0) <= \
                    data["unit"] / 2 * (1 + 1e-9) + 1e-15, path
                for b in range(len(info["bodies"])):
                    want = _quaternion(s["rotations"][b])
                    got = f0[3 * npt + 4 * b:3 * npt + 4 * b + 4]
                    assert np.max(np.abs(got - want)) <= 0.5e-4 + 1e-12, (path, b)
                checked += 1
    assert checked >= 10, checked


def test_scene_matches_animate_trajectory():
    """The cart pendulum's bob over 2 s at 60 fps: scene() at the states
    of a simulation sampled at the frames against the decoded frames (the
    frames are interpolated between simulate's rows: 5e-4)."""
    with tempfile.TemporaryDirectory() as d:
        data = _animate(CART, "lagrange", d, tf="2")
    assert data is not None and data["frames"] == 121
    m = lagrange.load(CART)
    sim = m.simulate(tf=2, dt=1 / 60)
    Q = np.column_stack([sim[c] for c in m.coordinates])
    s = m.scene(Q, t=sim["t"])
    frames = _frames(data)
    got = frames[:, 0:9].reshape(-1, 3, 3)
    assert len(Q) == 121 and np.max(np.abs(got - s["positions"])) < 5e-4


def test_scene_draw_shapes():
    """`draw` shapes: scene_info names them, scene gives their frames'
    rotations and their numbers (the bicycle's wheels turn with R and F)."""
    m = lagrange.load(os.path.join(ROOT, "examples", "whipple_bicycle.lag"))
    info = m.scene_info()
    names = [p["name"] for p in info["points"]]
    kinds = [d[0] for d in info["draws"]]
    assert kinds == ["disk", "disk", "capsule", "capsule", "capsule", "sphere"]
    disk = info["draws"][0]
    assert names[disk[1]] == "Ro" and disk[2] == -1 and disk[3] == 1
    cap = info["draws"][2]
    assert (names[cap[1]], names[cap[2]]) == ("Ro", "Bo")
    s = m.scene()
    assert s["shape_rotations"].shape == (6, 3, 3) and s["shape_values"].shape == (6, 6)
    assert np.allclose(s["shape_values"][0], [0.3, 0.04, 0, 0, 0, 0])
    assert np.allclose(s["shape_values"][1], [0.35, 0.04, 0, 0, 0, 0])
    # the rear wheel's frame is body R's: the same rotation
    r = [b["frame"] for b in info["bodies"]].index("R")
    assert np.array_equal(s["shape_rotations"][0], s["rotations"][r])
    assert np.array_equal(s["shape_rotations"][5], np.eye(3))
    assert s["inertia"].shape == (4, 7)
