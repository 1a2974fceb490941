#!/usr/bin/env python3
"""tgb_export.py: exports a TGB link dataset's validation and test negatives for dgnn.

    python3 scripts/tgb_export.py tgbl-wiki OUTDIR [--root DATASETS_DIR]
    python3 scripts/tgb_export.py --selftest

Needs py-tgb (pip install py-tgb) for an export; the self-test needs numpy only.

Loads the dataset with tgb.linkproppred.dataset.LinkPropPredDataset (which downloads it
into --root, default "datasets", as TGB does), loads its negatives (dataset.load_val_ns(),
dataset.load_test_ns(); TGB's negative sampler keeps them in
dataset.negative_sampler.eval_set[split], a dict keyed by (src, dst, t) -> array of
negative destinations), and writes into OUTDIR:

  NAME_val_ns.npy, NAME_test_ns.npy  int64 arrays (rows, cols): one row per positive edge
      of the split (dataset.full_data masked by dataset.val_mask / test_mask, in the
      dataset's order), its negative destinations left-aligned, cols = the longest list,
      -1 padding. What dgnn_tgb_negs_read (include/dgnn/eval_neg.h) reads.
  NAME_edges.csv     the events "src,dst,t", one a line, no header, in the dataset's order:
      the stream the lists belong to (dgnn reads it as an edge list: 3 fields = src dst ts).
  NAME_edgelist_path.txt  the path of the edge list CSV TGB loaded
      (dataset.meta_dict["fname"]), for the record.

Node ids: everywhere as TGB's dataset numbers them (full_data["sources"] /
["destinations"], the ids its negatives use), which may differ from the raw ids in TGB's
CSV. dgnn keeps these ids as the original ids of NAME_edges.csv (dense ids are assigned
in increasing original id), so the lists map onto its nodes by id.
"""
import os
import sys


def lists_to_array(np, src, dst, ts, eval_set):
    """(rows, cols) int64: row i = eval_set[(src[i], dst[i], ts[i])], padded with -1."""
    rows = []
    for i, key in enumerate(zip(src.tolist(), dst.tolist(), ts.tolist())):
        if key not in eval_set:
            raise KeyError(f"positive {i} {key} has no negatives in the evaluation set")
        rows.append(np.asarray(eval_set[key], dtype=np.int64).reshape(-1))
    cols = max((len(r) for r in rows), default=0)
    out = np.full((len(rows), cols), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


def save_atomic(np, path, arr):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        np.save(f, np.ascontiguousarray(arr, dtype=np.int64))
    os.replace(tmp, path)


def export(name, outdir, root):
    import numpy as np
    from tgb.linkproppred.dataset import LinkPropPredDataset

    ds = LinkPropPredDataset(name=name, root=root, preprocess=True)
    data = ds.full_data
    src, dst, ts = data["sources"], data["destinations"], data["timestamps"]
    os.makedirs(outdir, exist_ok=True)
    ds.load_val_ns()
    ds.load_test_ns()
    eval_set = ds.negative_sampler.eval_set
    for split, mask in (("val", ds.val_mask), ("test", ds.test_mask)):
        arr = lists_to_array(np, src[mask], dst[mask], ts[mask], eval_set[split])
        path = os.path.join(outdir, f"{name}_{split}_ns.npy")
        save_atomic(np, path, arr)
        print(f"{path}: {arr.shape[0]} rows x {arr.shape[1]} candidates")
    edges = os.path.join(outdir, f"{name}_edges.csv")
    with open(edges + ".tmp", "w") as f:
        for s, d, t in zip(src.tolist(), dst.tolist(), ts.tolist()):
            f.write(f"{s},{d},{t}\n")
    os.replace(edges + ".tmp", edges)
    with open(os.path.join(outdir, f"{name}_edgelist_path.txt"), "w") as f:
        f.write(str(ds.meta_dict["fname"]) + "\n")
    print(f"{edges}: {len(src)} events (train {int(ds.train_mask.sum())}, val {int(ds.val_mask.sum())}, "
          f"test {int(ds.test_mask.sum())})")


def selftest():
    try:
        import numpy as np
    except ImportError:
        print("selftest skipped: numpy is not installed")
        return 77
    import tempfile

    # positives (s, d, t); the third repeats the first (TGB's dict gives both one list)
    src = np.array([1, 2, 1, 3], dtype=np.int64)
    dst = np.array([5, 6, 5, 7], dtype=np.int64)
    ts = np.array([10, 10, 10, 11], dtype=np.int64)
    eval_set = {(1, 5, 10): np.array([6, 7, 8]), (2, 6, 10): np.array([5]), (3, 7, 11): np.array([], dtype=np.int64)}
    a = lists_to_array(np, src, dst, ts, eval_set)
    want = np.array([[6, 7, 8], [5, -1, -1], [6, 7, 8], [-1, -1, -1]], dtype=np.int64)
    fails = 0
    if a.dtype != np.int64 or a.shape != (4, 3) or not (a == want).all():
        print("FAIL: padding:", a)
        fails += 1
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "x_val_ns.npy")
        save_atomic(np, p, a)
        b = np.load(p)
        if b.dtype != np.int64 or not (b == want).all() or not b.flags["C_CONTIGUOUS"]:
            print("FAIL: round trip:", b)
            fails += 1
        with open(p, "rb") as f:
            head = f.read(10)
        if head[:8] != b"\x93NUMPY\x01\x00" or (10 + head[8] + 256 * head[9]) % 64:
            print("FAIL: header", head)
            fails += 1
    try:
        lists_to_array(np, np.array([9]), np.array([9]), np.array([9]), eval_set)
        print("FAIL: a positive without negatives was accepted")
        fails += 1
    except KeyError as e:
        if "(9, 9, 9)" not in str(e):
            print("FAIL: message", e)
            fails += 1
    empty = lists_to_array(np, src[:0], dst[:0], ts[:0], eval_set)
    if empty.shape != (0, 0):
        print("FAIL: empty split", empty.shape)
        fails += 1
    print("selftest:", "ok" if not fails else f"{fails} failed")
    return 1 if fails else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--selftest":
        return selftest()
    args = [a for a in argv[1:]]
    root = "datasets"
    if "--root" in args:
        i = args.index("--root")
        if i + 1 >= len(args):
            print("--root needs a folder", file=sys.stderr)
            return 2
        root = args[i + 1]
        del args[i : i + 2]
    if len(args) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    export(args[0], args[1], root)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
