"""The cart pendulum from Python: load, simulate, linearize (A, B ready for
an LQR design), and a plot when matplotlib is installed.

    PYTHONPATH=python /usr/bin/python3 examples/python/cart_pendulum.py [out.png]
"""
import os
import sys

import numpy as np

import lagrange

HERE = os.path.dirname(os.path.abspath(__file__))
m = lagrange.load(os.path.join(HERE, "..", "cart_pendulum.lag"))
print("coordinates:", m.coordinates)
print("parameters:", m.parameters)

s = m.simulate(tf=5.0, dt=0.01)
drift = np.max(np.abs((s["E"] - s["W"]) - (s["E"][0] - s["W"][0])))
print("simulated %d points to t = %g, energy drift %.3g" % (len(s["t"]), s["t"][-1], drift))

# For control, drive the cart with a force F (an input): the same model
# text plus two lines, loaded from a string.
with open(os.path.join(HERE, "..", "cart_pendulum.lag")) as f:
    text = f.read()
text = text.replace("frame N", "inputs F = 0\nframe N", 1) + "force C: F*N.x\n"
plant = lagrange.loads(text, name="cart_pendulum_force")
A, B = plant.linearize(at={"x": 0.0, "theta": 0.0, "x'": 0.0, "theta'": 0.0})
lin = plant.last_linearization
print("state:", lin["state"], "inputs:", lin["inputs"])
print("A =\n", A)
print("B =\n", B)
print("open-loop eigenvalues:", np.linalg.eigvals(A))

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    plt = None
if plt is not None:
    out = sys.argv[1] if len(sys.argv) > 1 else "cart_pendulum.png"
    fig, ax = plt.subplots()
    for c in m.coordinates:
        ax.plot(s["t"], s[c], label=c)
    ax.set_xlabel("t")
    ax.legend()
    fig.savefig(out)
    print("plot:", out)
