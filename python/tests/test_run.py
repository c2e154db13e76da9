"""python -m ozblas run: an unchanged program under the interposer shipped in the wheel."""
import os
import subprocess
import sys

import pytest

import ozblas
from ozblas.__main__ import preload_path

# the program calls the BLAS's cblas_ddot by name (what NumPy linked to a system BLAS does):
# under the interposer it is ozblas's, correctly rounded by default
CTYPES_DOT = """
import ctypes, sys
lib = ctypes.CDLL(None)
try:
    f = lib.cblas_ddot
except AttributeError:
    print("no cblas_ddot"); sys.exit(7)
f.restype = ctypes.c_double
f.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.POINTER(ctypes.c_double), ctypes.c_int]
x = (ctypes.c_double * 3)(1e16, 1.0, -1e16)
y = (ctypes.c_double * 3)(1 + 2**-52, 1.0, 1.0)
print(repr(f(3, x, 1, y, 1)), sys.argv[1:])
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 0)
"""


def run(*args, **kw):
    return subprocess.run([sys.executable, "-m", "ozblas", *args], capture_output=True, text=True, timeout=120, **kw)


@pytest.fixture
def script(tmp_path):
    p = tmp_path / "prog.py"
    p.write_text(CTYPES_DOT)
    return str(p)


def test_preload_shipped():
    assert os.path.exists(preload_path())


def test_run_script_cr(script):
    r = run("run", "--mode", "cr", "--verbose", script, "--flag", "x")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "3.220446049250313"
    assert "['--flag', 'x']" in r.stdout
    assert "-> ozblas" in r.stderr


def test_run_default_mode_and_exit_code(script):
    r = run("run", script, "3")
    assert r.returncode == 3
    assert r.stdout.startswith("3.220446049250313")


def test_run_c_and_options(script):
    code = open(script).read()
    r = run("run", "--mode=double", "--threads", "1", "--format", "fp64", "-c", code)
    assert r.returncode == 0 and r.stdout.startswith("3.220446049250313"), r.stderr


def test_run_errors(tmp_path):
    assert run("run", str(tmp_path / "missing.py")).returncode == 2
    assert run("run", "--mode", "exact", "x.py").returncode == 2
    assert run("run").returncode == 2
    assert run("bogus").returncode == 2


def test_info():
    r = run("info")
    assert r.returncode == 0 and "fp64" in r.stdout and ozblas.__version__ in r.stdout


def test_run_numpy_of_the_system_python(script):
    """NumPy linked to the system BLAS (Debian's python3-numpy) is intercepted: np.dot gives
    the correctly rounded 3.220446049250313 instead of 4.0."""
    py = "/usr/bin/python3"
    if not os.path.exists(py) or subprocess.run([py, "-c", "import numpy"], capture_output=True).returncode:
        pytest.skip("no system Python with NumPy")
    code = "import numpy as np; print(repr(np.dot([1e16, 1, -1e16], [1 + 2**-52, 1, 1])))"
    plain = subprocess.run([py, "-c", code], capture_output=True, text=True).stdout.strip()
    r = run("run", "--python", py, "-c", code)
    assert r.returncode == 0, r.stderr
    if plain == "3.220446049250313":
        pytest.skip("the system NumPy's BLAS already gives the exact result")
    assert r.stdout.strip() == "3.220446049250313", (plain, r.stdout, r.stderr)
