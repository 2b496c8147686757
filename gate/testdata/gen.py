#!/usr/bin/env python3
"""Writes the crafted benchmark files the gate tests read.

Run from gate/testdata: python3 gen.py. The files are committed; this script
documents how they were made (values are chosen, not measured).
"""

CONFIG = """goos: linux
goarch: amd64
cpu: {cpu}
go: go1.26.8
certbench-version: {version}
gomaxprocs: 2
"""

# Noise patterns (multipliers) for 6 samples of a timed metric.
NOISE = [1.000, 1.012, 0.991, 1.006, 0.995, 1.017]
NOISE2 = [1.004, 0.989, 1.010, 0.998, 1.015, 0.993]


def line(scenario, store, iters, sec, b, allocs, retained, certs, gor=0):
    ns = sec * 1e9
    return (f"BenchmarkChurn/scenario={scenario}/store={store}-2 {iters} {ns:.6g} ns/op "
            f"{b} B/op {allocs} allocs/op {retained:.8g} retained-B {retained / certs:.8g} retained-B/cert "
            f"{gor} goroutines")


def write(name, benches, n=6, cpu="AMD EPYC", version="v0.1.0", extra=""):
    """benches: list of dicts with scenario, store, iters, sec, b, allocs,
    retained, certs and optional per-sample overrides (lists)."""
    out = [CONFIG.format(cpu=cpu, version=version)]
    for i in range(n):
        for bn in benches:
            def pick(k, default=None):
                v = bn.get(k, default)
                return v[i % len(v)] if isinstance(v, list) else v
            noise = bn.get("noise", NOISE)[i % 6]
            out.append(line(bn["scenario"], bn.get("store", "optimized"), bn["iters"],
                            pick("sec") * noise, pick("b"), pick("allocs"),
                            pick("retained") * bn.get("rnoise", NOISE)[i % 6] ** 0.01,
                            bn["certs"], pick("gor", 0)))
    out.append(extra)
    with open(name, "w") as f:
        f.write("\n".join(out).rstrip("\n") + "\n")


ROT = dict(scenario="rotate-10-of-100", iters=10, sec=1.0e-3, b=84744, allocs=1191, retained=16248, certs=10)
LOOK = dict(scenario="lookup-1000", iters=20000, sec=100e-9, b=0, allocs=0, retained=1370000, certs=1000)
NEW = dict(scenario="noop-10000", iters=3, sec=15e-3, b=163840, allocs=1, retained=13945616, certs=10000)


def mod(base, **kw):
    d = dict(base)
    d.update(kw)
    return d


write("base.txt", [ROT, LOOK])
# Same code, different noise: must pass.
write("same.txt", [mod(ROT, noise=NOISE2), mod(LOOK, noise=NOISE2)])
# One more allocation per op, and 16 more bytes (+0.02%, within +2%).
write("alloc1.txt", [mod(ROT, allocs=1192, b=84760, noise=NOISE2), mod(LOOK, noise=NOISE2)])
# Timing noise: medians 3% apart, samples interleaved: not significant.
write("timenoise.txt", [mod(ROT, sec=1.03e-3, noise=[0.975, 1.0, 0.96, 1.01, 0.985, 0.97]), mod(LOOK, noise=NOISE2)])
# Significantly slower (samples fully separated), but only by 5%: within +10%.
write("timesmall.txt", [mod(ROT, sec=1.05e-3, noise=NOISE2), mod(LOOK, noise=NOISE2)])
# 25% slower, fully separated: a regression.
write("timeslow.txt", [mod(ROT, sec=1.25e-3, noise=NOISE2), mod(LOOK, noise=NOISE2)])
# Only 3 samples: timings cannot be decided; exact counts can.
write("few.txt", [ROT, LOOK], n=3)
# A benchmark of base is missing.
write("missing.txt", [mod(ROT, noise=NOISE2)])
# An extra benchmark only in head.
write("extra.txt", [mod(ROT, noise=NOISE2), mod(LOOK, noise=NOISE2), NEW])
# Another machine.
write("othercpu.txt", [mod(ROT, noise=NOISE2), mod(LOOK, noise=NOISE2)], cpu="Intel(R) Xeon(R) CPU @ 2.20GHz")
# Fewer allocations and bytes, faster lookups: improvements.
write("improved.txt", [mod(ROT, allocs=1100, b=76000, noise=NOISE2), mod(LOOK, sec=70e-9, noise=NOISE2)])
# Allocation counts that vary by one on both sides (not exact): U test.
write("noisyallocs-base.txt", [mod(ROT, allocs=[1191, 1192, 1191, 1191, 1192, 1191])])
write("noisyallocs-head.txt", [mod(ROT, allocs=[1191, 1191, 1192, 1191, 1191, 1192], noise=NOISE2)])
# Counts that drift by more than noise on every sample (not exact, shifted).
write("noisyallocs-up.txt", [mod(ROT, allocs=[1201, 1202, 1201, 1202, 1201, 1202], noise=NOISE2)])
# The golden report: an exact allocation regression, a timing regression,
# an improvement, a missing metric's benchmark, a new benchmark, another
# certbench version (not a machine key) and another CPU (a warning).
write("golden-head.txt", [mod(ROT, allocs=1201, b=89000, sec=1.25e-3, noise=NOISE2), mod(LOOK, sec=70e-9, noise=NOISE2), NEW],
      cpu="Intel(R) Xeon(R) CPU @ 2.20GHz", version="v0.2.0")
# Four samples a side: a U test alone can reach p = 0.029, but not after
# Holm's correction for the two benchmarks tested per metric (0.057).
write("four-base.txt", [ROT, LOOK], n=4)
write("four-head.txt", [mod(ROT, sec=1.25e-3, noise=NOISE2), mod(LOOK, noise=NOISE2)], n=4)
