#!/usr/bin/env python3
"""The CUDA kernels' resources, checked at build time (ptxas's resource usage): no kernel
spills registers, no kernel's stack frame exceeds 1 KiB (a large frame makes the driver
grow every thread's stack for the rest of the process), and the heavy kernels keep within
their register budgets (occupancy).  Usage:
    kernel_resources.py [--out FILE] NVCC SOURCE ARCH... [-- extra nvcc flags]
Prints one line per kernel and architecture (into FILE, written only when every rule holds);
exits 1 with the reasons when a rule breaks."""
import re, subprocess, sys

STACK_MAX = 1024
REG_DEFAULT = 64        # registers a kernel may use unless budgeted below
REG_BUDGET = {          # kernel name -> registers (255 is the hardware's maximum)
    "k_fused": 128,     # 4 x 8 digit-pair sums (half of op(A)'s digits per thread), 2 blocks of 256 an SM
    "k_fused_dot": 144, # the same and y's 8 digits: 1 block of 256 an SM (128 spills)
    "k_crit": 96,
    "k_skinny_i32": 96, # 16 sums of doubles per thread
    "k_sum_double": 72, # the element's walk over its slice pairs
    "k_sum_exact": 72,
}


def main():
    argv = sys.argv[1:]
    out_file = None
    if argv[:1] == ["--out"]:
        out_file, argv = argv[1], argv[2:]
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    nvcc, src = argv[0], argv[1]
    rest = argv[2:]
    report = []
    extra = rest[rest.index("--") + 1:] if "--" in rest else []
    archs = rest[:rest.index("--")] if "--" in rest else rest
    errors, seen = [], 0
    for arch in archs:
        cmd = [nvcc, "-c", src, "-o", "/dev/null", "--fmad=false", f"-arch=sm_{arch}", "--resource-usage"] + extra
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode:
            print(out.stdout + out.stderr, file=sys.stderr)
            return 1
        name = None
        for line in (out.stdout + out.stderr).splitlines():
            m = re.search(r"Compiling entry function '(\S+)'", line)
            if m:
                k = re.search(r"(k_\w+?)E", m.group(1))   # the kernel's name inside the mangled one
                name = k.group(1) if k else m.group(1)
                continue
            m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
            if m and name:
                stack, st, ld = map(int, m.groups())
                if stack > STACK_MAX:
                    errors.append(f"{name} sm_{arch}: {stack} bytes stack frame (at most {STACK_MAX})")
                if st or ld:
                    errors.append(f"{name} sm_{arch}: spills ({st} bytes stored, {ld} loaded)")
                frame = stack
                continue
            m = re.search(r"Used (\d+) registers", line)
            if m and name:
                regs = int(m.group(1))
                budget = REG_BUDGET.get(name, REG_DEFAULT)
                if regs > budget:
                    errors.append(f"{name} sm_{arch}: {regs} registers (budget {budget})")
                report.append(f"sm_{arch} {name:18s} {regs:4d} registers {frame:5d} bytes stack")
                seen += 1
                name = None
    if seen == 0:
        errors.append("no kernel found in ptxas's output")
    print("\n".join(report))
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    if not errors and out_file:
        with open(out_file, "w") as f:
            f.write("\n".join(report) + "\n")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
