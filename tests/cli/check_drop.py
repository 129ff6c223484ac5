#!/usr/bin/env python3
"""Runs `geolin simulate URDF --drop ... --output CSV` and checks from the CSV it writes, against
oracles of its own, that the robot ends at rest in stance:

  - the final vertical foot forces sum to the weight m |g| within 1 %, m being the sum of the
    URDF's <mass value> (read here, not from geolin) and |g| = 9.81;
  - every foot is within 1 mm of the ground z = 0 at the end;
  - every joint velocity whose name contains KNEE is below 1 rad/s in magnitude from STANCE
    seconds after the touchdown (the first row with a non-zero vertical force) to the end.

usage: check_drop.py GEOLIN URDF CSV KNEE STANCE -- ARGS...   (ARGS: the rest of the command line)
Prints the measured numbers; exit status 1 if a check fails or geolin does not exit with 0.
"""
import csv
import subprocess
import sys
import xml.etree.ElementTree as ET


def urdf_mass(path):
    return sum(float(m.get("value")) for m in ET.parse(path).getroot().iter("mass"))


def main(argv):
    geolin, urdf, out, knee, stance = argv[1:6]
    assert argv[6] == "--"
    cmd = [geolin, "simulate", urdf, "--output", out] + argv[7:]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    print(" ".join(cmd))
    print(run.stdout)
    if run.returncode != 0:
        print(f"FAIL: exit status {run.returncode}")
        return 1
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    head, data = rows[0], [[float(v) for v in r] for r in rows[1:]]
    col = {name: i for i, name in enumerate(head)}
    fz = [i for n, i in col.items() if n.startswith("lambda[") and n.endswith("][fz]")]
    zs = [i for n, i in col.items() if n.startswith("z[")]
    knees = [i for n, i in col.items() if n.startswith("r[") and knee in n]
    if not fz or not zs or not knees:
        print(f"FAIL: the CSV lacks foot force, foot height or {knee} velocity columns")
        return 1
    weight = urdf_mass(urdf) * 9.81
    last = data[-1]
    force = sum(last[i] for i in fz)
    depth = max(abs(last[i]) for i in zs)
    touchdown = next((r[0] for r in data if any(r[i] != 0.0 for i in fz)), None)
    if touchdown is None:
        print("FAIL: no touchdown (no non-zero vertical force)")
        return 1
    later = [r for r in data if r[0] >= touchdown + float(stance) - 1e-12]
    knee_speed = max(abs(r[i]) for r in later for i in knees) if later else float("inf")
    print(f"final vertical forces / weight = {force / weight:.6f} (weight {weight:.6g} N)")
    print(f"max |foot z| at the end = {depth:.3e} m")
    print(f"max |{knee} velocity| from t = {touchdown + float(stance):g} s = {knee_speed:.3e} rad/s"
          f" ({len(later)} rows)")
    ok = True
    if not abs(force / weight - 1.0) <= 0.01:
        print("FAIL: the final vertical forces are not the weight within 1 %")
        ok = False
    if not depth <= 1e-3:
        print("FAIL: a foot is more than 1 mm off the ground")
        ok = False
    if not (later and knee_speed < 1.0):
        print(f"FAIL: a {knee} joint moves at 1 rad/s or more after {stance} s of stance")
        ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
