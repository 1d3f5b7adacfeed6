"""examples/bovw_retrieval.py runs end to end on a few frames of the opencv-doc videos (so it cannot rot),
and refuses bad input with one Error line."""
import pathlib
import re
import subprocess
import sys

import pytest

import plinth

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "bovw_retrieval.py"
VIDEOS = pathlib.Path("/usr/share/doc/opencv-doc/examples/data")

needs_videos = pytest.mark.skipif(not (VIDEOS / "tree.avi").is_file(), reason="opencv-doc's videos are not installed")
needs_surf = pytest.mark.skipif(not hasattr(plinth, "SURF_create"), reason="plinth built without SURF")


def run(*args):
    return subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, timeout=300)


@needs_videos
@needs_surf
def test_bovw_retrieval_on_a_few_frames():
    done = run("--frames", "4", "--k", "8", "--width", "160")
    assert done.returncode == 0, done.stderr
    scores = re.search(r"top-1 accuracy ([\d.]+), mean average precision ([\d.]+) \(random ranking: top-1 ([\d.]+)\)", done.stdout)
    assert scores, done.stdout
    top1, mean_ap, chance = map(float, scores.groups())
    assert "6 query frames against 6 training frames" in done.stdout
    # Three very different videos: even 2 training frames each retrieve far above chance.
    assert top1 >= 0.5 > chance and 0 < mean_ap <= 1


@needs_surf
def test_bovw_retrieval_refuses_a_missing_folder(tmp_path):
    done = run("--videos", str(tmp_path), "--frames", "4")
    assert done.returncode != 0
    assert done.stderr.strip().splitlines()[-1].startswith("Error: ") and "vtest.avi not found" in done.stderr


@needs_videos
@needs_surf
def test_bovw_retrieval_refuses_too_large_a_vocabulary():
    done = run("--frames", "4", "--width", "160", "--k", "100000")
    assert done.returncode != 0 and done.stderr.strip().startswith("Error: --k 100000: only ")
