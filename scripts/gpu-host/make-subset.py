"""Copies the ONNX backend tests whose models use an op the ROCm kernel table claims into DEST,
smallest first, up to a byte budget (the device tool carries at most 64 MiB in all).
    /usr/bin/python3 scripts/gpu-host/make-subset.py DEST [budget_mb] [SRC]
SRC defaults to Debian's ONNX 1.12 suite; .cache/onnx-1.23.1/data (written by setup.sh) is the 1.23.1
node suite. Prints how many tests were taken and left out."""
import os
import re
import shutil
import subprocess
import sys

import onnx

src = sys.argv[3] if len(sys.argv) > 3 else "/usr/share/libonnx-testdata/data"
dest = sys.argv[1]
budget = float(sys.argv[2] if len(sys.argv) > 2 else 12) * 2**20
table = open(os.path.join(os.path.dirname(__file__), "../../packages/ep-rocm/src/kernel-table.ts")).read()
claimed = set(re.findall(r"row\('(\w+)'", table))
for group in re.findall(r"\[([^\]]*)\]\.map\(\(op\) => row\(op", table):
    claimed |= set(re.findall(r"'(\w+)'", group))

def size(d):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)

candidates = []
for suite in ["node", "pytorch-converted", "pytorch-operator", "simple"]:
    if not os.path.isdir(os.path.join(src, suite)):
        continue
    for name in sorted(os.listdir(os.path.join(src, suite))):
        d = os.path.join(src, suite, name)
        m = os.path.join(d, "model.onnx")
        if not os.path.exists(m):
            continue
        ops = {n.op_type for n in onnx.load(m, load_external_data=False).graph.node}
        if ops & claimed:
            candidates.append((size(d), suite, name))
candidates.sort()
used = 0
taken = 0
# Copies of /usr/share files are read-only: make them writable before removing an old subset.
subprocess.run(["chmod", "-R", "u+w", dest], stderr=subprocess.DEVNULL)
shutil.rmtree(dest, ignore_errors=True)
for s, suite, name in candidates:
    if used + s > budget:
        continue
    shutil.copytree(os.path.join(src, suite, name), os.path.join(dest, suite, name))
    used += s
    taken += 1
print(f"claimed ops: {len(claimed)}; tests using them: {len(candidates)}; taken: {taken} ({used / 2**20:.1f} MiB); left out: {len(candidates) - taken}")
