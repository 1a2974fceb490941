#!/usr/bin/env python3
"""Train TGN on Wikipedia from Python: the learning curve, the test AP, node embeddings.

    python3 python/examples/tutorial.py [DATA] [--epochs N] [--max-batches N]
                                        [--eval-max-events N] [--out-dir DIR] [--seed S]

DATA: any file dgnn.load reads (default ../shared/data/wikipedia/wikipedia.csv, beside the
repository). Writes into --out-dir (default tutorial-out/):
  curve.json       one entry per epoch: train loss, val AP (and the rest of the epoch's figures)
  curve.png        the learning curve, when matplotlib can be imported (it is not a dependency)
  embeddings.npy   (num_nodes, mem_dim) float32: every node's embedding at the end of the stream
  node_ids.npy     the original node id of each row of embeddings.npy
docs/python.md ("Tutorial") walks through it.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
try:
    import dgnn  # first: it sets the command's OpenBLAS/OpenMP variables before numpy loads
except ImportError:  # a checkout, not installed: the package is python/dgnn
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import dgnn
import numpy as np


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data", nargs="?", default=os.path.join(ROOT, "..", "shared", "data", "wikipedia", "wikipedia.csv"))
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--max-batches", type=int, default=0, help="stop each epoch after N batches (0: all)")
    p.add_argument("--eval-max-events", type=int, default=0, help="evaluate each split on its first N events (0: all)")
    p.add_argument("--out-dir", default="tutorial-out")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--mem-dim", type=int, default=None, help="memory size (default: the model's)")
    a = p.parse_args(argv)
    os.makedirs(a.out_dir, exist_ok=True)

    # 1. The events: src, dst, time (and edge features, labels) in C memory.
    ev = dgnn.load(a.data)
    print(f"{a.data}: {len(ev)} events, {ev.num_nodes} nodes, {ev.edge_dim} edge features, "
          f"{'bipartite' if ev.bipartite else 'not bipartite'}")

    # 2. Train TGN; on_epoch sees each epoch's figures as it ends (the --curve line).
    curve = []

    def on_epoch(e):
        curve.append(e)
        print(f"epoch {e['epoch']}: train loss {e['train_loss']:.4f}  val AP {e['val_ap']:.4f}  "
              f"({e['seconds']:.1f} s)", flush=True)
        return False  # True would stop training here (as early stopping does)

    res, model = dgnn.train(ev, model="tgn", epochs=a.epochs, seed=a.seed, on_epoch=on_epoch,
                            max_batches=a.max_batches or None, eval_max_events=a.eval_max_events or None,
                            mem_dim=a.mem_dim, quiet=True, return_model=True)
    with open(os.path.join(a.out_dir, "curve.json"), "w") as f:
        json.dump(curve, f, indent=1)

    # 3. The learning curve, when matplotlib is there.
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (curve.json has the figures)")
    else:
        ep = [e["epoch"] for e in curve]
        fig, ax1 = plt.subplots(figsize=(6, 4))
        ax1.plot(ep, [e["train_loss"] for e in curve], "o-", color="tab:blue", label="train loss")
        ax1.set_xticks(ep)
        ax1.set_xlabel("epoch")
        ax1.set_ylabel("train loss", color="tab:blue")
        ax2 = ax1.twinx()
        ax2.plot(ep, [e["val_ap"] for e in curve], "s-", color="tab:orange", label="val AP")
        ax2.set_ylabel("val AP", color="tab:orange")
        ax1.set_title(f"TGN on {os.path.basename(a.data)}: test AP {res['test']['ap']:.4f}")
        fig.tight_layout()
        png = os.path.join(a.out_dir, "curve.png")
        fig.savefig(png, dpi=100)
        plt.close(fig)
        print(f"plot: {png}")

    # 4. The test figures: the last epoch's model on the test split (the best epoch's when the
    #    run stopped early: early stopping, or on_epoch returning True; docs/tgnn.md).
    t = res["test"]
    print(f"test AP {t['ap']:.4f}  AUC {t['auc']:.4f}  new-node AP {t['new_node_ap']:.4f}")

    # 5. Every node's embedding at the end of the stream (the memory after the test events).
    d = ev.to_numpy()
    ids = d["node_ids"]
    emb = model.embed(ids, float(d["t"][-1]))
    np.save(os.path.join(a.out_dir, "embeddings.npy"), emb)
    np.save(os.path.join(a.out_dir, "node_ids.npy"), np.asarray(ids))
    print(f"embeddings: {os.path.join(a.out_dir, 'embeddings.npy')} {emb.shape} {emb.dtype}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
