"""The type stubs (python/plinth/_plinth.pyi) are what scripts/gen_python_stubs.py makes of the built
module (nanobind's stubgen, parameters typed): regenerate them with that script."""
import pathlib
import subprocess
import sys

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "gen_python_stubs.py"


def test_stubs_are_current():
    pytest.importorskip("nanobind.stubgen")
    run = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
