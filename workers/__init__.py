"""What the background workers do: the pipeline stages and the methods behind them.

Nothing in this package imports Django except ``workers/tasks.py``.
"""
import os

# torch's OpenMP threads spin while they wait for one another; where other jobs hold the
# cores, each spinning thread takes a core from the thread it waits for, and the sentence
# model ran 6-9x slower on two busy cores (docs/audit.md, issue 33). Passive waiting gives
# the same vectors, bit for bit. Set here, before anything loads torch's OpenMP runtime.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
