#!/usr/bin/env python3
"""helios_figures.py - read the Helios trace figures' numbers out of their PDFs.

    scripts/helios_figures.py HELIOS_ARTIFACT_DIR > reference/helios-jobs.csv

HELIOS_ARTIFACT_DIR is a checkout of github.com/S-Lab-System-Group/HeliosArtifact
(the analysis scripts of Hu et al., "Characterization and Prediction of Deep
Learning Workloads in Large-Scale GPU Datacenters", SC '21). Its notebooks draw
the paper's figures as vector PDFs; each curve is one polyline whose vertices
are the plotted values, so the numbers come back exactly (to the PDF's 6
digits), not by eye. Read here:
  analysis/3_job characterization/job_cdf_gpunum.pdf: CDF of job sizes in GPUs,
      (a) share of jobs, (b) share of GPU time, at 1,2,4,8,12,16,24,32,40,48,56,
      64 GPUs and "> 64" (plotted at 80; the notebook counts every job there)
  analysis/3_job characterization/job_cdf_jobtime.pdf: (a) CDF of GPU job
      durations at 2^0 .. 2^21 s
  analysis/2_cluster characterization/cluster_diurnal.pdf: (b) GPU jobs
      submitted per hour of the day, averaged over six months
  analysis/1_compare with Philly trace/helios_cluster_summary.csv: mean and
      median GPU job run time (copied as they are)
and one derived value per cluster: sigma, the slope of a least-squares line
through the duration CDF on the probit scale (points 0.01 < F < 0.99, against
ln seconds), the lognormal shape `gpusim gen training` uses.
Output: CSV cluster,series,x,value. Needs python3 only (zlib).
"""
import csv
import math
import os
import re
import sys
import zlib
from statistics import NormalDist

CLUSTERS = ["Venus", "Earth", "Saturn", "Uranus"]  # the notebooks' plotting order


def content(path):
    data = open(path, "rb").read()
    m = re.search(rb"stream\r?\n", data)
    end = data.find(b"endstream", m.end())
    return zlib.decompress(data[m.end():end]).decode("latin1").split("\n")


def polylines(lines, npts):
    """The stroked polylines of npts vertices, in drawing order."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].endswith(" RG /DeviceRGB cs"):
            pts, j = [], i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            while j < len(lines) and (lines[j].endswith(" m") or lines[j].endswith(" l")):
                x, y, _ = lines[j].split()
                pts.append((float(x), float(y)))
                j += 1
            if len(pts) == npts:
                out.append(pts)
            i = j
        else:
            i += 1
    return out


def hlines(lines):
    """y of the horizontal tick marks (a short 'm' then 'l' at the same y), with the label after them."""
    ticks = []
    for k in range(len(lines) - 12):
        a, b = lines[k].split(), lines[k + 1].split()
        if len(a) == 3 and len(b) == 3 and a[2] == "m" and b[2] == "l" and a[1] == b[1] \
                and 0 < float(a[0]) - float(b[0]) < 6:
            for t in lines[k + 2:k + 12]:
                m = re.match(r"\((\d+)\) Tj", t)
                if m:
                    ticks.append((float(a[1]), float(m.group(1))))
                    break
    return ticks


def yscale(ticks, lo, hi):
    """Map from PDF y to data through the ticks labelled lo and hi (first panel's)."""
    ylo = next(y for y, v in ticks if v == lo)
    yhi = next(y for y, v in ticks if v == hi)
    return lambda y: lo + (y - ylo) / (yhi - ylo) * (hi - lo)


def main(root):
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["cluster", "series", "x", "value"])
    job = os.path.join(root, "analysis", "3_job characterization")
    sizes = [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 65]
    lines = content(os.path.join(job, "job_cdf_gpunum.pdf"))
    f = yscale(hlines(lines), 0, 100)
    curves = polylines(lines, len(sizes))
    for series, part in (("jobs_cdf_pct", curves[:4]), ("gputime_cdf_pct", curves[4:8])):
        for name, c in zip(CLUSTERS, part):
            for g, (_, y) in zip(sizes, c):
                w.writerow([name, series, g, "%.2f" % f(y)])
    lines = content(os.path.join(job, "job_cdf_jobtime.pdf"))
    f = yscale(hlines(lines), 0, 100)
    nd = NormalDist()
    for name, c in zip(CLUSTERS, polylines(lines, 22)[:4]):
        xs, zs = [], []
        for k, (_, y) in enumerate(c):
            p = f(y) / 100
            w.writerow([name, "duration_cdf", 2 ** k, "%.4f" % p])
            if 0.01 < p < 0.99:
                xs.append(k * math.log(2))
                zs.append(nd.inv_cdf(p))
        mx, mz = sum(xs) / len(xs), sum(zs) / len(zs)
        slope = sum((x - mx) * (z - mz) for x, z in zip(xs, zs)) / sum((x - mx) ** 2 for x in xs)
        w.writerow([name, "duration_sigma", "", "%.4f" % (1 / slope)])
    lines = content(os.path.join(root, "analysis", "2_cluster characterization", "cluster_diurnal.pdf"))
    ticks = [t for t in hlines(lines) if t[0] < 200]  # panel (b) is the lower one
    f = yscale(ticks, 0, 100)
    for name, c in zip(CLUSTERS, polylines(lines, 24)[4:8]):
        for h, (_, y) in enumerate(c):
            w.writerow([name, "submit_per_hour", h, "%.1f" % f(y)])
    rows = csv.DictReader(open(os.path.join(root, "analysis", "1_compare with Philly trace",
                                            "helios_cluster_summary.csv")))
    for r in rows:
        if r["id"] in CLUSTERS:
            w.writerow([r["id"], "mean_run_time_gpu_s", "", r["avg_run_time_gpu"]])
            w.writerow([r["id"], "median_run_time_gpu_s", "", r["med_run_time_gpu"]])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: helios_figures.py HELIOS_ARTIFACT_DIR")
    main(sys.argv[1])
