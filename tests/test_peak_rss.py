"""peak_rss_mb is this program's own peak: a small process started by a big one does not report
the parent's (getrusage's ru_maxrss does on Linux: it is kept across fork and exec)."""

import subprocess
import sys

import numpy as np
import pytest

from solverkit.core.memory import peak_rss_mb

CHILD = "from solverkit.core.memory import peak_rss_mb; print(peak_rss_mb())"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM is Linux's")
def test_a_child_of_a_big_process_reports_its_own_peak():
    big = np.ones(400 * 2**20 // 8)  # 400 MB resident in this process
    assert peak_rss_mb() > 400
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
    child = float(out.stdout.split()[-1])
    assert 5 < child < 200, child  # the interpreter and numpy, not this process's 400+ MB
    del big
