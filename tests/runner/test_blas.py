"""benchlab run loads numpy (then scipy, for a stopping rule) with one BLAS thread and
leaves the environment alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

CHECK = """
import json, os
os.environ["OMP_NUM_THREADS"] = "3"
before = dict(os.environ)
from benchlab.runner.blas import load_single_threaded
import sys
load_single_threaded()
plain = "scipy.special" not in sys.modules
load_single_threaded(scipy=True)
print(json.dumps({"same_env": dict(os.environ) == before, "numpy_only_first": plain,
                  "threads": len(os.listdir("/proc/self/task"))}))
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_runner_loads_numpy_without_blas_threads_and_restores_the_environment():
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                         check=True, env=env).stdout
    doc = json.loads(out)
    assert doc == {"same_env": True, "numpy_only_first": True, "threads": 1}
