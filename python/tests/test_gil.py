"""The GIL is released while C trains (ctypes.CDLL): another Python thread keeps running."""
import threading
import time

import dgnn


def test_other_threads_run_during_training(stream):
    ticks, done = [0], threading.Event()

    def count():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    ev = dgnn.load(stream)
    t.start()
    t0 = time.monotonic()
    try:
        dgnn.train(ev, epochs=3, batch=50, mem_dim=16, time_dim=8, quiet=True)
    finally:
        done.set()
        t.join()
    seconds = time.monotonic() - t0
    # with the GIL held for the whole call the counter could not move; released, it ticks
    # about once a millisecond (a loose floor: a loaded machine sleeps longer)
    assert ticks[0] >= 0.1 * seconds * 1000 and ticks[0] > 20, (ticks[0], seconds)
