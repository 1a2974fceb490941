"""A process forked (os.fork, multiprocessing's 'fork') after dgnn ran OpenMP work: its calls
run on one thread instead of hanging in libgomp, and its exit leaves the parent's temporary
model alone. Each case runs in a fresh interpreter, every child under a deadline."""
import json
import os
import subprocess
import sys

from conftest import ROOT

# in_child(work): work() in a forked child that prints one "CHILD {json}" line; its exit
# code, or "hung" when it is still running after the deadline (then killed)
PRELUDE = r'''
import gc, json, os, sys, time, warnings
import dgnn
Q = dict(epochs=1, max_batches=2, eval_max_events=300, seed=1, mem_dim=8, time_dim=4, quiet=True)
data = sys.argv[1]

def in_child(work, deadline=40):
    pid = os.fork()
    if pid == 0:
        out = {}
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                out["result"] = work()
            out["warnings"] = [str(x.message) for x in w if issubclass(x.category, RuntimeWarning)]
        except BaseException as e:
            out["raised"] = "%s: %s" % (type(e).__name__, e)
        print("CHILD " + json.dumps(out), flush=True)
        os._exit(0)
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return "hung"

def report(**kw):
    print("PARENT " + json.dumps(kw), flush=True)
'''


def _run(code, stream):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, "-c", PRELUDE + code, stream], env=env, capture_output=True, text=True,
                       timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    children = [json.loads(x[6:]) for x in lines if x.startswith("CHILD ")]
    parent = [json.loads(x[7:]) for x in lines if x.startswith("PARENT ")]
    return children, parent[0], r


def test_a_child_forked_after_training_runs_on_one_thread(stream):
    # it hung forever in libgomp (the parent's thread pool, whose threads are not in the child)
    code = r'''
before = in_child(lambda: dgnn.train(data, **Q)["config"]["threads"])  # no OpenMP work in the parent yet
res, model = dgnn.train(data, return_model=True, **Q)
ids = model.data.to_numpy()["node_ids"][:3]

def one_thread():
    threads = dgnn.train(data, **Q)["config"]["threads"]
    dgnn.schedule(data, workers=2, snapshots=20, window=3)  # no --threads of its own
    return [threads, model.embed(ids, 1.0).shape[0]]

a = in_child(one_thread)
b = in_child(lambda: dgnn.train(data, **dict(Q, threads=2)))
c = in_child(lambda: dgnn.train(data, **dict(Q, threads=1))["config"]["threads"])
report(codes=[before, a, b, c])
'''
    children, parent, r = _run(code, stream)
    assert parent["codes"] == [0, 0, 0, 0], (parent, r.stderr[-3000:])
    before, a, b, c = children
    assert before == {"result": 0, "warnings": []}  # OpenMP's default: nothing said
    assert a["result"] == [1, 3]
    assert len(a["warnings"]) == 1, a  # once per process
    w = a["warnings"][0]
    assert "forked after dgnn ran OpenMP work" in w and "threads=1" in w and "'spawn'" in w and "'forkserver'" in w
    assert b["raised"].startswith("DgnnError: dgnn.train: threads=2 in a process forked after dgnn ran OpenMP work")
    assert "'spawn'" in b["raised"]
    assert c == {"result": 1, "warnings": []}


def test_a_forked_child_that_exits_leaves_the_parents_temporary_model(stream):
    # the child's exit ran the inherited TemporaryDirectory finalizer: the parent's checkpoint was gone
    code = r'''
res, model = dgnn.train(data, return_model=True, **Q)
folder = os.path.dirname(model.path)
pid = os.fork()
if pid == 0:
    sys.exit(0)  # a normal exit: atexit and the finalizers run
os.waitpid(pid, 0)
kept = os.path.isdir(model.path)
shape = list(model.embed(model.data.to_numpy()["node_ids"][:2], 1.0).shape)
del model
gc.collect()
report(kept=kept, shape=shape, removed=not os.path.exists(folder), folder=folder)
'''
    _, parent, r = _run(code, stream)
    assert parent["kept"] and parent["shape"][0] == 2, r.stderr[-3000:]
    assert parent["removed"]  # still removed with the parent's model
