"""The planar n-link chain as a model file, for the tests: its own m_i, l_i
per link, point masses at the link ends, gravity -g N.y; absolute angles
(frame Ai = rotate(N, N.z, qi)) or relative (rotate(A(i-1), A(i-1).z, qi)).
(bench/models.py is the benchmarks' generator; the tests keep their own.)"""


def chain(n, relative, initial=None):
    lines = ["coordinates " + " ".join(f"q{i}" for i in range(1, n + 1)),
             "parameters g = 9.81, " + ", ".join(f"m{i} = {1 + 0.1 * i:g}, l{i} = {0.5 + 0.03 * i:g}"
                                                 for i in range(1, n + 1)),
             "frame N", "point O"]
    prev, frame = "O", "N"
    for i in range(1, n + 1):
        parent = frame if relative else "N"
        lines += [f"frame A{i} = rotate({parent}, {parent}.z, q{i})",
                  f"point P{i} = {prev} - l{i}*A{i}.y", f"particle P{i} mass m{i}"]
        prev, frame = f"P{i}", f"A{i}"
    lines.append("gravity -g*N.y")
    if initial:
        lines.append("initial " + ", ".join(f"q{i} = {v:g}" for i, v in enumerate(initial, 1)))
    return "\n".join(lines) + "\n"
