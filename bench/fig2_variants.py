"""Which reading of the CFR+ paper reproduces its Figure 2a numbers exactly?

An independent plain-numpy loop (no solverkit code) over skewed matching pennies, varying the
three details a paper leaves implicit: update order, which strategy enters the average with
alternating updates, and the exploitability definition. Prints the first iteration at which
exploitability <= 1e-3 for each variant and writes bench/results/fig2_variants.md.

    python bench/fig2_variants.py
"""

from pathlib import Path

import numpy as np

A = np.array([[1.0, -2.0], [-2.0, 4.0]])


def rm(r):
    p = np.maximum(r, 0.0)
    s = p.sum()
    return p / s if s > 0 else np.full(len(r), 1.0 / len(r))


def first_hit(plus, linear, alternating, pairing, definition, target=1e-3, cap=30000):
    """pairing 'opponent': each average takes the strategy the opponent's update was computed
    against (Tammelin's pseudocode); 'own': each player's pass adds its own strategy before
    updating (OpenSpiel's CFRSolver). definition 'mean': (br0 + br1) / 2; 'sum': NashConv."""
    R0, R1, S0, S1 = np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2)
    for t in range(1, cap + 1):
        w = float(t) if linear else 1.0
        if alternating:
            x, y = rm(R0), rm(R1)
            if pairing == "own":
                S0 += w * x
            u = A @ y
            R0 += u - x @ u
            if plus:
                R0 = np.maximum(R0, 0.0)
            if pairing == "opponent":
                S1 += w * y
            x = rm(R0)
            if pairing == "own":
                S1 += w * y
            u = -(x @ A)
            R1 += u - y @ u
            if plus:
                R1 = np.maximum(R1, 0.0)
            if pairing == "opponent":
                S0 += w * x
        else:
            x, y = rm(R0), rm(R1)
            S0 += w * x
            S1 += w * y
            u0, u1 = A @ y, -(x @ A)
            R0 += u0 - x @ u0
            R1 += u1 - y @ u1
            if plus:
                R0, R1 = np.maximum(R0, 0.0), np.maximum(R1, 0.0)
        xb, yb = S0 / S0.sum(), S1 / S1.sum()
        br0, br1 = np.max(A @ yb), np.max(-(xb @ A))
        e = (br0 + br1) / 2 if definition == "mean" else br0 + br1
        if e <= target:
            return t
    return None


VARIANTS = [
    ("CFR+: alternating, opponent pairing, (br0+br1)/2", (True, True, True, "opponent", "mean"), 343),
    ("CFR+: alternating, own pairing, (br0+br1)/2", (True, True, True, "own", "mean"), 343),
    ("CFR+: alternating, opponent pairing, br0+br1", (True, True, True, "opponent", "sum"), 343),
    ("CFR+: simultaneous, (br0+br1)/2", (True, True, False, "opponent", "mean"), 343),
    ("CFR: alternating, opponent pairing, (br0+br1)/2", (False, False, True, "opponent", "mean"), 3539),
    ("CFR: alternating, own pairing, (br0+br1)/2", (False, False, True, "own", "mean"), 3539),
    ("CFR: alternating, opponent pairing, br0+br1", (False, False, True, "opponent", "sum"), 3539),
    ("CFR: simultaneous, (br0+br1)/2", (False, False, False, "opponent", "mean"), 3539),
]


def main():
    lines = ["| variant | iterations to 1e-3 | paper |", "|---|---|---|"]
    for label, args, paper in VARIANTS:
        hit = first_hit(*args)
        lines.append(f"| {label} | {hit if hit is not None else '> 30,000'} | {paper:,} |")
    text = "\n".join(lines) + "\n"
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "fig2_variants.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
