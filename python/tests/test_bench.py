"""python/bench/calls.py runs and reports every case (the lead times it on the GPU machine)."""
import json
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_calls_bench_runs(tmp_path):
    out = tmp_path / "calls.json"
    command = [sys.executable, str(REPO / "python" / "bench" / "calls.py"), "--count", "30", "--repeats", "1", "--json", str(out)]
    cli = REPO / "build" / "tools" / "plinth" / "plinth"
    if cli.exists():
        command += ["--cli", str(cli)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    result = json.loads(out.read_text())
    both = {f"{case}, timing {t}" for case in ["convert 1x1 u8->f32", "integral 640x480 u8->s32"] for t in ["on", "off"]}
    assert set(result["python_us"]) == both | {f"convert 1x1 numpy round trip, timing {t}" for t in ["on", "off"]}
    assert all(v > 0 for v in result["python_us"].values())
    if cli.exists():
        assert set(result["overhead_us"]) == both
