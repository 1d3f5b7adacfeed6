#!/usr/bin/env python3
"""Bad-input tests of the plinth command-line tool (issue 15), run by ctest with label `cli`.

    cli_test.py PLINTH GROUP...      (groups: usage inputs params outputs detect bench)

Every subcommand gets missing, empty, corrupt, directory and FIFO inputs, lying image headers,
hostile .npy headers, bad sizes and parameters. A failure must be one line `plinth: ...` on
stderr with exit code 1 (2 for command-line syntax), never a crash or a hang; it must leave no
file behind and every file that was there untouched. Outputs that exist are refused without
--force; a full device (/dev/full) and a file-size limit (a full disk) make writes fail loudly
without destroying the old file. Inputs are small and generated here (standard library only).
"""
import hashlib
import json
import os
import resource
import signal
import struct
import subprocess
import sys
import tempfile
import zlib

TIMEOUT = int(os.environ.get("PLINTH_CLI_TEST_TIMEOUT", "180"))  # seconds per command: a hang fails
failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what, flush=True)


# --- inputs -------------------------------------------------------------------------------------

def png_bytes(width, height, channels=3, seed=1, ihdr_size=None):
    """A valid 8-bit PNG (colour type from the channel count) with pseudo-random pixels."""
    colour = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    w, h = ihdr_size or (width, height)
    rows = bytearray()
    state = seed
    for _ in range(height):
        rows.append(0)
        for _ in range(width * channels):
            state = (state * 1103515245 + 12345) & 0x7FFFFFFF
            rows.append(state >> 16 & 0xFF)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(bytes(rows))) + chunk(b"IEND", b""))


def npy_bytes(header, version=1, data=b""):
    raw = header.encode()
    length = struct.pack("<H", len(raw)) if version == 1 else struct.pack("<I", len(raw))
    return b"\x93NUMPY" + bytes([version, 0]) + length + raw + data


def jpeg_bomb(width, height):
    """SOI and a SOF0 segment stating the size: enough for a header check, nothing to decode."""
    return b"\xff\xd8\xff\xc0\x00\x0b\x08" + struct.pack(">HH", height, width) + b"\x01\x01\x11\x00" + bytes(200)


def make_inputs(d):
    files = {
        "good.png": png_bytes(64, 48, 3, seed=1),
        "good2.png": png_bytes(64, 48, 3, seed=2),
        "gray.png": png_bytes(32, 24, 1, seed=3),
        "empty.png": b"",
        "corrupt.png": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
        "truncated.png": png_bytes(64, 48, 3, seed=4)[:120],
        "text.png": b"this is not an image at all\n",
        "zero.png": png_bytes(1, 1, 1, ihdr_size=(0, 0)),
        "huge.png": png_bytes(1, 1, 1, ihdr_size=(65535, 65535)),
        "bomb.jpg": jpeg_bomb(40000, 40000),
        "bomb.pgm": b"P5\n40000 40000\n255\n" + bytes(100),
        "long_dtype.npy": npy_bytes("{'descr': '" + "x" * 30000 + "', 'fortran_order': False, 'shape': (2, 3), }"),
        "spaces.npy": npy_bytes("{'descr': '|u1'," + " " * 60000 + "'fortran_order': False, 'shape': (2, 3), }", 2,
                                bytes(6)),
        "no_data.npy": npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (40000, 40000), }"),
        "zero.npy": npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 3), }"),
        "frames.nv12": bytes(16 * 12 * 3 // 2 * 2),  # two 16x12 frames
        "bad.xml": b"<opencv_storage><cascade><stageType>BOOST</stageType></cascade></opencv_storage>",
    }
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    os.mkdir(os.path.join(d, "adir"))
    os.mkfifo(os.path.join(d, "fifo.png"))
    os.mkfifo(os.path.join(d, "fifo.npy"))
    os.mkfifo(os.path.join(d, "fifo.nv12"))
    os.mkfifo(os.path.join(d, "fifo.xml"))


# --- running the tool ---------------------------------------------------------------------------

class Cli:
    def __init__(self, exe, work):
        self.exe = exe
        self.work = work
        self.inputs = os.path.join(work, "in")
        self.out = os.path.join(work, "out")
        os.mkdir(self.inputs)
        os.mkdir(self.out)
        make_inputs(self.inputs)

    def i(self, name):
        return os.path.join(self.inputs, name)

    def o(self, name):
        return os.path.join(self.out, name)

    def run(self, args, file_limit=None):
        def limit():
            if file_limit is not None:
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
                resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, resource.RLIM_INFINITY))
        try:
            p = subprocess.run([self.exe] + args, capture_output=True, text=True, errors="replace",
                               timeout=TIMEOUT, preexec_fn=limit, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            fail("hang (no exit within %d s): plinth %s" % (TIMEOUT, " ".join(args)))
            return None
        return p

    def ok(self, args, **kw):
        p = self.run(args, **kw)
        if p is not None and p.returncode != 0:
            fail("plinth %s: exit %d, expected 0; stderr: %s" % (" ".join(args), p.returncode, p.stderr.strip()[:300]))
        return p

    def fails(self, args, expect=(), code=1, **kw):
        """Runs a command that must fail cleanly: exit `code`, one `plinth:` line naming `expect`,
        and the output directory exactly as it was."""
        if isinstance(expect, str):
            expect = (expect,)
        before = snapshot(self.out)
        p = self.run(args, **kw)
        after = snapshot(self.out)
        what = "plinth " + " ".join(a if len(a) < 80 else a[:80] + "..." for a in args)
        if before != after:
            fail("%s: changed the output directory: %s -> %s" % (what, sorted(before), sorted(after)))
        if p is None:
            return None
        if p.returncode != code:
            fail("%s: exit %d, expected %d; stderr: %s" % (what, p.returncode, code, p.stderr.strip()[:300]))
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        if len(lines) != 1 or not lines[0].startswith("plinth: "):
            fail("%s: stderr is not one 'plinth:' line: %r" % (what, p.stderr[:500]))
        elif len(lines[0]) > 2300:
            fail("%s: a %d-character error line" % (what, len(lines[0])))
        if "internal error" in p.stderr:
            fail("%s: an internal error: %s" % (what, p.stderr.strip()[:300]))
        for text in expect:
            if text.lower() not in p.stderr.lower():
                fail("%s: stderr lacks %r: %s" % (what, text, p.stderr.strip()[:300]))
        return p


def snapshot(d):
    """Every file under d (links as links) and a hash of its content."""
    out = {}
    for root, dirs, files in os.walk(d):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, d)
            if os.path.islink(path):
                out[rel] = "-> " + os.readlink(path)
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
            else:
                out[rel] = "dir"
    return out


# Every command that reads an image, as a function of (input, output directory).
def image_commands(cli):
    return {
        "convert": lambda src: ["convert", src, cli.o("c.npy"), "--depth", "f32"],
        "filter box": lambda src: ["filter", "box", src, cli.o("b.png")],
        "filter median": lambda src: ["filter", "median", src, cli.o("m.png"), "--ksize", "3"],
        "filter gaussian": lambda src: ["filter", "gaussian", src, cli.o("g.png"), "--ksize", "3"],
        "filter sep": lambda src: ["filter", "sep", src, cli.o("s.png"), "--kx", "1,2,1"],
        "filter conv": lambda src: ["filter", "conv", src, cli.o("v.png"), "--kernel", "0,1,0;1,1,1;0,1,0"],
        "filter epsilon": lambda src: ["filter", "epsilon", src, cli.o("e.png")],
        "color": lambda src: ["color", src, cli.o("k.png"), "--code", "rgb_to_gray"],
        "integral": lambda src: ["integral", src, "-o", cli.o("i.npy")],
        "pyramid": lambda src: ["pyramid", src, cli.o("p"), "--levels", "2"],
        "detect": lambda src: ["detect", src, "--draw", cli.o("d.png")],
        "features": lambda src: ["features", src, "-o", cli.o("f.npy")],
    }


# --- groups -------------------------------------------------------------------------------------

def group_usage(cli):
    cli.fails(["nosuchcommand"], "unknown command 'nosuchcommand'", code=2)
    cli.fails(["--device", "cpu", "nosuchcommand", "x"], "unknown command 'nosuchcommand'", code=2)
    cli.fails(["filter", "nosuchfilter", "a", "b"], "unknown command 'filter nosuchfilter'", code=2)
    cli.fails([], "subcommand is required", code=2)
    cli.fails(["filter"], "subcommand is required", code=2)
    cli.fails(["convert"], code=2)
    cli.fails(["convert", cli.i("good.png"), cli.o("x.png")], "--depth", code=2)
    cli.fails(["filter", "box", cli.i("good.png"), cli.o("x.png"), "--bogus"], "--bogus", code=2)
    cli.fails(["filter", "box", cli.i("good.png"), cli.o("x.png"), "--ksize"], "--ksize", code=2)
    cli.fails(["detect", cli.i("good.png"), "--scale-factor", "abc"], code=2)
    cli.fails(["pyramid", cli.i("good.png"), cli.o("p"), "--levels", "99999999999999"], code=2)
    p = cli.ok(["--help"])
    if p is not None and "Subcommands" not in p.stdout:
        fail("--help prints no command list")


def group_inputs(cli):
    bad = [
        ("missing.png", "No such file"),
        ("adir", "directory"),
        ("empty.png", "empty"),
        ("corrupt.png", "not a readable"),
        ("truncated.png", "read_image"),
        ("text.png", "not a PNG, JPEG"),
        ("fifo.png", "not a regular file"),
        ("zero.png", "0x0"),
        ("huge.png", "65535x65535"),
        ("bomb.jpg", "40000x40000"),
        ("bomb.pgm", "40000x40000"),
    ]
    for name, cmd in image_commands(cli).items():
        for src, expect in bad:
            cli.fails(cmd(cli.i(src)), expect)
    # .npy inputs, read by convert, the filters and pyramid.
    npy_bad = [
        ("long_dtype.npy", "is not supported"),
        ("no_data.npy", "truncated data"),
        ("zero.npy", "3x0"),
        ("fifo.npy", "not a regular file"),
    ]
    for name in ("convert", "filter box", "filter median", "pyramid", "color"):
        for src, expect in npy_bad:
            p = cli.fails(image_commands(cli)[name](cli.i(src)), (expect, cli.i(src)))
            if p is not None and len(p.stderr) > 300:
                fail("%s %s: the error echoes too much (%d characters)" % (name, src, len(p.stderr)))
    # NV12 raw inputs.
    cli.fails(["filter", "epsilon", cli.i("frames.nv12"), cli.o("e.nv12")], "--size")
    cli.fails(["filter", "epsilon", cli.i("frames.nv12"), cli.o("e.nv12"), "--size", "10x10"], "not a whole number")
    cli.fails(["filter", "epsilon", cli.i("frames.nv12"), cli.o("e.nv12"), "--size", "15x12"], "even")
    cli.fails(["filter", "epsilon", cli.i("fifo.nv12"), cli.o("e.nv12"), "--size", "16x12"], "not a regular file")
    cli.fails(["filter", "epsilon", cli.i("frames.nv12"), cli.o("e.png"), "--size", "16x12"], "2 frames")
    cli.fails(["color", cli.i("fifo.nv12"), cli.o("k.png"), "--code", "nv12_to_rgb", "--size", "16x12"],
              "not a regular file")
    # Cascades.
    for cascade, expect in (("missing.xml", "missing.xml"), (cli.i("adir"), "adir"), (cli.i("bad.xml"), "bad.xml"),
                            (cli.i("fifo.xml"), "fifo.xml"), (cli.i("good.png"), "good.png"),
                            ("no_such_cascade_name", "no_such_cascade_name")):
        cli.fails(["detect", cli.i("good.png"), "--cascade", cascade], expect)
    cli.fails(["detect", cli.i("adir")], "no image files")
    cli.fails(["detect", cli.i("*.nothing")], "matches no file")


def group_params(cli):
    g = cli.i("good.png")
    size_cases = ["0", "0x5", "5x0", "-3", "axb", "5x", "x5", "99999999999x5", "131073x1", "5x5x5", "1e3"]
    for text in size_cases:
        cli.fails(["filter", "box", g, cli.o("b.png"), "--ksize", text], "--ksize")
        cli.fails(["detect", g, "--min-size", text], "--min-size")
        cli.fails(["bench", "integral", "--size", text], "--size")
    cli.fails(["filter", "box", g, cli.o("b.png"), "--ksize", "300x3"], "ksize")
    cli.fails(["filter", "median", g, cli.o("m.png"), "--ksize", "4"], "ksize")
    cli.fails(["filter", "gaussian", g, cli.o("g.png")], "ksize")
    cli.fails(["filter", "gaussian", g, cli.o("g.png"), "--sigma", "1e9"], "sigma: 1e+09")
    cli.fails(["filter", "gaussian", g, cli.o("g.png"), "--sigma", "nan"], "sigma")
    cli.fails(["filter", "gaussian", g, cli.o("g.png"), "--ksize", "4"], "ksize")
    cli.fails(["filter", "sep", g, cli.o("s.png"), "--kx", "1,x,1"], "--kx")
    cli.fails(["filter", "sep", g, cli.o("s.png"), "--kx", "1e39"], "--kx")
    cli.fails(["filter", "sep", g, cli.o("s.png"), "--kx", ",".join(["1"] * 64)], "kx")
    cli.fails(["filter", "conv", g, cli.o("v.png"), "--kernel", "1,2;3"], "different lengths")
    cli.fails(["filter", "conv", g, cli.o("v.png"), "--kernel", cli.i("adir")], "not a list of numbers nor a regular file")
    cli.fails(["filter", "conv", g, cli.o("v.png"), "--kernel", cli.i("fifo.png")], "nor a regular file")
    cli.fails(["filter", "box", g, cli.o("b.png"), "--border", "bogus"], "bogus")
    cli.fails(["filter", "box", g, cli.o("b.png"), "--method", "bogus"], "bogus")
    cli.fails(["filter", "box", g, cli.o("b.png"), "--anchor", "9,9"], "anchor")
    cli.fails(["filter", "epsilon", g, cli.o("e.png"), "--window", "4"], "window")
    cli.fails(["filter", "epsilon", g, cli.o("e.png"), "--threshold", "-1"], "threshold")
    cli.fails(["convert", g, cli.o("c.npy"), "--depth", "u7"], "u7")
    cli.fails(["convert", g, cli.o("c.png"), "--depth", "f32"], "PNG output takes 8-bit images")
    cli.fails(["convert", g, cli.o("c.tiff"), "--depth", "u8"], "unknown extension")
    cli.fails(["color", g, cli.o("k.png"), "--code", "bogus"], "bogus")
    cli.fails(["color", g, cli.o("k.png"), "--code", "x" * 100000], "unknown conversion")
    cli.fails(["integral", g, "-o", cli.o("i.txt")], ".npy")
    for text in ("0", "-3", "nan", "abc", "5x"):
        cli.fails(["bovw", "train", g, "--k", text, "-o", cli.o("v.npy")], "is not a number above zero", code=2)
    cli.fails(["integral", g, "--count", "--sq"], "--count")
    cli.fails(["integral", g, "--sum-depth", "u7"], "u7")
    cli.fails(["integral", g, "--method", "bogus"], "bogus")
    cli.fails(["pyramid", g, cli.o("p"), "--levels", "0"], "--levels")
    cli.fails(["pyramid", g, cli.o("p"), "--levels", "33"], "--levels")
    cli.fails(["pyramid", g, cli.o("p"), "--up", "--subsampled", "4"], "--up")
    for factor in ("1", "0.5", "-2", "nan", "inf", "-inf"):
        cli.fails(["detect", g, "--scale-factor", factor], "--scale-factor")
    cli.fails(["detect", g, "--min-neighbors", "-1"], "--min-neighbors")
    cli.fails(["detect", g, "--min-size", "50x50", "--max-size", "20x20"], "larger than --max-size")
    cli.fails(["detect", g, "--method", "bogus"], "bogus")
    with open(cli.o("d.txt"), "w") as f:
        f.write("a file, not a directory\n")
    cli.fails(["detect", g, cli.i("good2.png"), "--draw", cli.o("d.txt")], "names a directory")
    os.remove(cli.o("d.txt"))
    cli.fails(["detect", g, "--draw", cli.o("d.jpg")], ".png")
    cli.fails(["bench", "nosuchop"], "not a registered op")
    cli.fails(["bench", "integral", "--runs", "0"], "--runs")
    cli.fails(["bench", "integral", "--warmup", "-1"], "--warmup")
    cli.fails(["bench", "integral", "--max-case-seconds", "nan"], "--max-case-seconds")
    cli.fails(["--device", "no-such-device-anywhere", "filter", "box", g, cli.o("b.png")], "no-such-device-anywhere")


def group_outputs(cli):
    g = cli.i("good.png")
    # Outputs that exist are refused without --force, and untouched.
    existing = {
        "convert": (["convert", g, cli.o("x.npy"), "--depth", "f32"], ["x.npy"]),
        "filter box": (["filter", "box", g, cli.o("x.png")], ["x.png"]),
        "color": (["color", g, cli.o("x.pgm"), "--code", "rgb_to_gray"], ["x.pgm"]),
        "integral": (["integral", g, "-o", cli.o("x.npy"), "--sq"], ["x.sqsum.npy"]),
        "pyramid": (["pyramid", g, cli.o("x"), "--levels", "3"], ["x_2.png"]),
        "detect": (["detect", g, "--draw", cli.o("x.png")], ["x.png"]),
        "epsilon": (["filter", "epsilon", g, cli.o("x.nv12")], ["x.nv12"]),
        "bench": (["bench", "integral", "--json", cli.o("x.json")], ["x.json"]),
    }
    for name, (args, present) in existing.items():
        for p in present:
            with open(cli.o(p), "w") as f:
                f.write("precious\n")
        cli.fails(args, ("exists", "--force"))
        for p in present:
            os.remove(cli.o(p))
    # An output in a directory that does not exist, or that is a directory.
    cli.fails(["-f", "convert", g, cli.o("nodir/x.npy"), "--depth", "u8"], "nodir")
    os.mkdir(cli.o("sub.png"))
    cli.fails(["-f", "filter", "box", g, cli.o("sub.png")], "is a directory")
    os.rmdir(cli.o("sub.png"))
    # A full device: every format fails loudly, and /dev/full stays a device. (`convert --depth u8`
    # of an 8-bit image is a copy: no kernel to build. The few commands that need kernels share
    # one size and options with the other groups, so that the program cache serves them.)
    if os.path.exists("/dev/full"):
        for name in ("full.png", "full.pgm", "full.npy", "full.nv12", "full_0.png"):
            os.symlink("/dev/full", cli.o(name))
        space = "No space left"
        cli.fails(["-f", "convert", g, cli.o("full.png"), "--depth", "u8"], space)
        cli.fails(["-f", "convert", cli.i("gray.png"), cli.o("full.pgm"), "--depth", "u8"], space)
        cli.fails(["-f", "convert", g, cli.o("full.npy"), "--depth", "u8"], space)
        cli.fails(["-f", "pyramid", cli.i("gray.png"), cli.o("full"), "--levels", "1"], space)
        cli.fails(["-f", "integral", g, "--sq", "-o", cli.o("full.npy")], space)
        cli.fails(["-f", "filter", "epsilon", g, cli.o("full.nv12")], space)
        for name in ("full.png", "full.pgm", "full.npy", "full.nv12", "full_0.png"):
            os.remove(cli.o(name))
        if not os.path.exists("/dev/full") or os.path.isfile("/dev/full"):
            fail("/dev/full was replaced by a file")
    # A full disk (a file-size limit): with --force the old files survive and nothing is left.
    for args, olds in [
        (["-f", "convert", g, cli.o("y.npy"), "--depth", "u8"], ["y.npy"]),
        (["-f", "convert", g, cli.o("y.png"), "--depth", "u8"], ["y.png"]),
        (["-f", "pyramid", g, cli.o("y"), "--levels", "3"], ["y_0.png", "y_1.png", "y_2.png"]),
        (["-f", "integral", g, "--sq", "-o", cli.o("y.npy")], ["y.npy", "y.sqsum.npy"]),
        (["-f", "filter", "epsilon", g, cli.o("y.nv12")], ["y.nv12"]),
    ]:
        full_disk_keeps_old_files(cli, args, olds)
    # --force replaces what was there.
    with open(cli.o("y.npy"), "w") as f:
        f.write("old\n")
    cli.ok(["-f", "convert", g, cli.o("y.npy"), "--depth", "u8"])
    with open(cli.o("y.npy"), "rb") as f:
        if not f.read(6) == b"\x93NUMPY":
            fail("convert -f did not replace the old file")
    leftovers = [n for n in os.listdir(cli.out) if n.startswith(".")]
    if leftovers:
        fail("temporary files left behind: %s" % leftovers)


def full_disk_keeps_old_files(cli, args, olds, limit=4096):
    """Runs `args` once without a limit (it works, and its kernels are built and cached: under the
    limit the OpenCL compiler could not write its own files), then over the old files with a
    file-size limit of `limit` bytes: the run fails, the old files are as they were."""
    cli.ok(args)
    for name in olds:
        if not os.path.isfile(cli.o(name)):
            fail("plinth %s wrote no %s" % (" ".join(args), name))
        with open(cli.o(name), "w") as f:
            f.write("precious old content of %s\n" % name)
    cli.fails(args, "File too large", file_limit=limit)
    for name in olds:
        os.remove(cli.o(name))


def group_detect(cli):
    g, g2 = cli.i("good.png"), cli.i("good2.png")
    # A scale factor of 1e8 looped forever; now one scale, and a clean exit.
    cli.ok(["detect", g, "--scale-factor", "1e8"])
    cli.ok(["detect", g, "--scale-factor", "1e300", "--json"])
    # A later input that fails: text and JSON report the same earlier results, exit 1.
    text = cli.fails(["detect", g, cli.i("corrupt.png"), g2], "corrupt.png")
    js = cli.fails(["detect", g, cli.i("corrupt.png"), g2, "--json"], "corrupt.png")
    if text is not None and js is not None:
        if not text.stdout.startswith(g + ": ") or g2 in text.stdout:
            fail("detect (text) did not report exactly the input before the failure: %r" % text.stdout[:300])
        try:
            doc = json.loads(js.stdout)
            if [entry["file"] for entry in doc] != [g]:
                fail("detect --json reported %s, expected the one input before the failure" % [e["file"] for e in doc])
        except ValueError as e:
            fail("detect --json printed no valid JSON after a failure (%s): %r" % (e, js.stdout[:300]))
    p = cli.ok(["detect", g, g2, "--json"])
    if p is not None and len(json.loads(p.stdout)) != 2:
        fail("detect --json of two inputs")
    # Drawings of the inputs before a failure are complete files; nothing else is left.
    os.mkdir(cli.o("draw"))
    p = cli.run(["detect", g, cli.i("corrupt.png"), "--draw", cli.o("draw")])
    if p is None or p.returncode != 1 or sorted(os.listdir(cli.o("draw"))) != ["good.png"]:
        fail("detect --draw DIR with a failing second input: %s" % (sorted(os.listdir(cli.o("draw")))))
    # --draw to a full device, and to a full disk over an old file.
    if os.path.exists("/dev/full"):
        os.symlink("/dev/full", cli.o("full.png"))
        cli.fails(["-f", "detect", g, "--draw", cli.o("full.png")], "No space left")
        os.remove(cli.o("full.png"))
    full_disk_keeps_old_files(cli, ["-f", "detect", g, "--draw", cli.o("y.png")], ["y.png"])
    # The integral command says which call it timed (the first includes compiling on PoCL).
    p = cli.ok(["integral", g, "--sq"])
    if p is not None and "second call" not in p.stdout:
        fail("integral does not say what was timed: %r" % p.stdout[:300])


def group_bench(cli):
    # --json with --force must not empty the old file at start-up: stop the run right after it
    # has started, and the file is as it was.
    path = cli.o("old.json")
    with open(path, "w") as f:
        f.write('{"old": "results"}\n')
    proc = subprocess.Popen([cli.exe, "-f", "bench", "integral", "--size", "64x64", "--runs", "1", "--warmup", "0",
                             "--json", path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()  # "bench: DEVICE [...], copy bandwidth..." comes after start-up
        if "copy bandwidth" not in line:
            fail("bench printed %r first" % line)
    finally:
        proc.kill()
        proc.wait()
    with open(path) as f:
        if f.read() != '{"old": "results"}\n':
            fail("bench --json --force emptied or replaced the old file at start-up")
    leftovers = [n for n in os.listdir(cli.out) if n.startswith(".")]
    for name in leftovers:  # the killed run's temporary file, if it had begun one
        os.remove(os.path.join(cli.out, name))
    # A case that fails makes the exit code non-zero; the JSON holds its error row.
    p = cli.run(["-f", "bench", "integral", "--size", "131072x131072", "--runs", "1", "--warmup", "0", "--json", path])
    if p is not None:
        if p.returncode != 1 or "failed" not in p.stderr.splitlines()[-1]:
            fail("bench with a failing case: exit %d, last line %r" % (p.returncode, p.stderr.splitlines()[-1:]))
        with open(path) as f:
            doc = json.load(f)
        if not any(c.get("error") for c in doc.get("cases", [])):
            fail("bench JSON has no error row: %s" % str(doc)[:300])
    # Each timed run follows the keep_busy filler unless --no-filler; the JSON says which.
    for extra, want_filler in (([], True), (["--no-filler"], False)):
        path = cli.o("filler%d.json" % want_filler)
        p = cli.run(["bench", "compact", "--size", "64x64", "--runs", "3", "--warmup", "1", "--json", path] + extra)
        if p is None:
            continue
        if p.returncode != 0:
            fail("bench compact %s: exit %d: %s" % (extra, p.returncode, p.stderr[-300:]))
        with open(path) as f:
            doc = json.load(f)
        filler = doc["settings"]["filler"]
        timed = [c for c in doc["cases"] if c.get("timing") == "device_events"]
        if not timed:
            fail("bench compact timed no plinth case: %s" % str(doc)[:300])
        if want_filler:
            if not filler.get("us_per_step", 0) > 0:
                fail("bench without --no-filler calibrated no filler: %r" % filler)
            for c in timed:
                if not (c.get("filler", {}).get("us", 0) >= 20 and c["filler"].get("host_enqueue_us", 0) > 0):
                    fail("a timed case without its filler: %r" % {k: c.get(k) for k in ("variant", "config", "filler")})
        else:
            if filler != {"none": "--no-filler"} or any("filler" in c for c in timed):
                fail("bench --no-filler still used a filler: %r" % filler)
            if "--no-filler" not in doc["command"]:
                fail("the JSON's command leaves out --no-filler: %r" % doc["command"])


GROUPS = {
    "usage": group_usage,
    "inputs": group_inputs,
    "params": group_params,
    "outputs": group_outputs,
    "detect": group_detect,
    "bench": group_bench,
}


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    exe = os.path.abspath(sys.argv[1])
    names = sys.argv[2:]
    for name in names:
        if name not in GROUPS:
            print("unknown group", name)
            return 2
    with tempfile.TemporaryDirectory(prefix="plinth_cli_test_") as work:
        for name in names:
            group_dir = os.path.join(work, name)
            os.mkdir(group_dir)
            print("group", name, flush=True)
            GROUPS[name](Cli(exe, group_dir))
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
