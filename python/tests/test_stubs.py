"""The type stubs (python/plinth/_plinth.pyi) are what nanobind's stubgen makes of the built module:
regenerate them with `python -m nanobind.stubgen -m plinth._plinth -o python/plinth/_plinth.pyi`."""
import pathlib
import subprocess
import sys

import pytest

STUB = pathlib.Path(__file__).resolve().parents[1] / "plinth" / "_plinth.pyi"


def test_stubs_are_current(tmp_path):
    pytest.importorskip("nanobind.stubgen")
    out = tmp_path / "_plinth.pyi"
    subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "plinth._plinth", "-o", str(out)], check=True)
    assert out.read_text() == STUB.read_text(), "regenerate python/plinth/_plinth.pyi (see this file's docstring)"
