#!/usr/bin/env python3
"""gen_k8s_pods.py N OUT.json - a `kubectl get pods -A -o json` List of N pods
for measuring `gpusim import k8s` on large snapshots: the pods of
tests/fixtures/k8s/pods.json repeated, each copy with its own name, uid and
creation time (shifted by its copy number), written as kubectl writes it
(4-space indentation). Streams its output: memory independent of N."""
import copy, json, sys

def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    base = json.load(open("tests/fixtures/k8s/pods.json"))["items"]
    with open(out, "w") as f:
        f.write('{\n    "apiVersion": "v1",\n    "items": [\n')
        for i in range(n):
            p = copy.deepcopy(base[i % len(base)])
            k = i // len(base)
            md = p["metadata"]
            md["name"] = f'{md["name"]}-{k}'
            md["uid"] = f'{md["uid"][:24]}{k:012d}'
            # whole minutes later per copy, so creation order interleaves copies
            text = json.dumps(p, indent=4)
            text = shift(text, k)
            f.write(("        " + text.replace("\n", "\n        ")) + (",\n" if i + 1 < n else "\n"))
        f.write('    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')

def shift(text, k):
    """Every 2024-05-01THH:MM:SSZ moved by k seconds (days when it overflows)."""
    import re, datetime
    def rep(m):
        t = datetime.datetime.strptime(m.group(0), "%Y-%m-%dT%H:%M:%SZ") + datetime.timedelta(seconds=k)
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")
    return re.sub(r"2024-05-01T\d\d:\d\d:\d\dZ", rep, text)

main()
