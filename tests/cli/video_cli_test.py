#!/usr/bin/env python3
"""The CLI on video: `plinth frames`, `plinth detect VIDEO` and `plinth track`, run by ctest (label `cli`).

    video_cli_test.py PLINTH GROUP...      (groups: video track)

video: a short clip cut from opencv-doc's tree.avi (320x240) with `plinth frames`, decoded back to
       PNG frames, detect on it (one JSON line per frame, --draw a video), and damaged videos and
       refused outputs (one error line, nothing left behind). Where the CLI was built without
       FFmpeg, it checks that a video gets one clear line saying so.
track: `plinth track` on PNG frames and on the clip: one JSON line per frame, floats that read
       back exactly, points drawn into a video and into PNG frames; bad windows, levels, frames
       of different sizes or types, frames without corners. Skipped (exit 77) where the CLI has no
       track command.
Uses cli_test.py's harness (Python's standard library only).
"""
import json
import os
import struct
import sys

import cli_test
from cli_test import Cli, fail, png_bytes

TREE = "/usr/share/doc/opencv-doc/examples/data/tree.avi"
SKIP = 77


def video_built(cli):
    p = cli.run(["frames", TREE, cli.o("probe"), "--count", "1"])
    if p is None:
        return False
    if p.returncode == 0:
        for name in os.listdir(cli.o("probe")):
            os.remove(os.path.join(cli.o("probe"), name))
        os.rmdir(cli.o("probe"))
        return True
    if "video support was not built" not in p.stderr:
        fail("plinth frames on tree.avi failed: %s" % p.stderr.strip()[:300])
    return False


def make_clip(cli):
    """Three colour frames of tree.avi re-encoded (mpeg4 in AVI), and the same as grey PNGs."""
    clip = cli.i("clip.avi")
    cli.ok(["frames", TREE, clip, "--count", "3"])
    cli.ok(["frames", clip, cli.i("gray"), "--gray"])
    return clip


def json_lines(p, what):
    try:
        return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    except ValueError as e:
        fail("%s: stdout is not JSON lines (%s): %r" % (what, e, p.stdout[:300]))
        return []


def group_video(cli):
    if not video_built(cli):
        # Without FFmpeg: one clear line for a video, wherever one is given.
        cli.fails(["detect", TREE], "video support was not built")
        cli.fails(["frames", TREE, cli.o("f")], "video support was not built")
        return
    clip = make_clip(cli)
    frames = sorted(os.listdir(cli.i("gray")))
    if frames != ["frame_000000.png", "frame_000001.png", "frame_000002.png"]:
        fail("plinth frames wrote %s" % frames)

    p = cli.ok(["detect", clip, "--json"])
    if p is not None:
        lines = json_lines(p, "detect --json on a video")
        if [l.get("frame") for l in lines] != [0, 1, 2] or any(l.get("width") != 320 or l.get("height") != 240 or
                                                                "detections" not in l for l in lines):
            fail("detect --json on a video: %r" % p.stdout[:400])
    cli.ok(["detect", clip, "--draw", cli.o("faces.mp4")])
    cli.ok(["frames", cli.o("faces.mp4"), cli.o("faces")])
    if len(os.listdir(cli.o("faces"))) != 3:
        fail("detect --draw faces.mp4 holds %d frames, not 3" % len(os.listdir(cli.o("faces"))))
    if any(n.startswith(".") for n in os.listdir(cli.out)):
        fail("temporary files left: %s" % os.listdir(cli.out))

    # Damaged videos: a text file, the clip cut short; outputs asked for are not left behind.
    with open(cli.i("text.avi"), "wb") as f:
        f.write(b"not a video\n" * 100)
    with open(clip, "rb") as f:
        whole = f.read()
    with open(cli.i("cut.avi"), "wb") as f:
        f.write(whole[:len(whole) * 2 // 3])
    cli.fails(["detect", cli.i("text.avi"), "--draw", cli.o("a.mp4")], "not a video file")
    cli.fails(["detect", cli.i("cut.avi"), "--draw", cli.o("b.mp4")], "cut.avi")
    cli.fails(["frames", cli.i("cut.avi"), cli.o("cut_frames")], "cut.avi")
    cli.fails(["detect", cli.i("missing.avi")], "missing.avi")
    cli.fails(["detect", clip, cli.i("good.png")], "only input")
    cli.fails(["detect", clip, "--draw", cli.o("one.png")], "video file")
    cli.fails(["detect", clip, "--draw", cli.o("faces.mp4")], "--force")  # exists
    cli.fails(["frames", clip, cli.o("faces")], "--force")
    cli.fails(["frames", cli.i("good.png"), cli.o("g")], "not a video")
    # A FIFO named as a video (FFmpeg's open waited for a writer for ever) and a directory.
    os.mkfifo(cli.i("fifo.avi"))
    cli.fails(["frames", cli.i("fifo.avi"), cli.o("fifo_frames")], "not a regular file")
    os.mkdir(cli.i("folder.avi"))
    cli.fails(["frames", cli.i("folder.avi"), cli.o("folder_frames")], "is a directory")


def float32_text_ok(text):
    """True when the JSON number is the float32 value it denotes printed with %.9g."""
    value = struct.unpack("<f", struct.pack("<f", float(text)))[0]
    return "%.9g" % value == text


def check_track_lines(p, frames, what):
    lines = json_lines(p, what)
    if [l.get("frame") for l in lines] != list(range(frames)):
        fail("%s: frames %s" % (what, [l.get("frame") for l in lines]))
        return
    first = lines[0]
    if first.get("detected", 0) < 1 or any(q["status"] != 1 for q in first["points"]):
        fail("%s: frame 0 %r" % (what, str(first)[:300]))
    if len(lines[1]["points"]) != first["detected"]:
        fail("%s: frame 1 lists %d points, frame 0 detected %d" % (what, len(lines[1]["points"]), first["detected"]))
    if not any(q["status"] == 1 for q in lines[1]["points"]):
        fail("%s: every point lost at frame 1" % what)
    # Floats exactly as printed: take the raw text of the first line's numbers.
    raw = p.stdout.splitlines()[1]
    for key in ('"x": ', '"y": ', '"err": '):
        start = raw.find(key) + len(key)
        text = raw[start:].split(",")[0].split("}")[0]
        if text != "null" and not float32_text_ok(text):
            fail("%s: %s%s does not read back as the float it prints" % (what, key, text))


def group_track(cli):
    if cli.run(["track", "--help"]).returncode != 0:
        print("plinth has no track command (corners and klt not built): skipped")
        sys.exit(SKIP)
    have_video = video_built(cli)
    if have_video:
        clip = make_clip(cli)
        gray = cli.i("gray")
    else:  # the same kind of frames, made here
        gray = cli.i("gray")
        os.mkdir(gray)
        for k in range(3):
            with open(os.path.join(gray, "frame_%06d.png" % k), "wb") as f:
                f.write(png_bytes(96, 72, 1, seed=11))  # the same frame thrice: nothing moves
    n = len(os.listdir(gray))
    p = cli.ok(["track", gray, "--json", "--points", "60", "--min-distance", "5"])
    if p is not None:
        check_track_lines(p, n, "track FRAMES --json")
    pngs = sorted(os.path.join(gray, f) for f in os.listdir(gray))
    p = cli.ok(["track"] + pngs + ["--json", "--points", "60", "--win", "15x9", "--levels", "0", "--redetect-below", "50"])
    if p is not None:
        check_track_lines(p, n, "track PNG... --json")
    cli.ok(["track", gray, "--points", "60", "--draw", cli.o("tracks")])
    if sorted(os.listdir(cli.o("tracks"))) != ["frame_%06d.png" % k for k in range(n)]:
        fail("track --draw folder: %s" % os.listdir(cli.o("tracks")))
    if have_video:
        p = cli.ok(["track", clip, "--json", "--points", "60"])
        if p is not None:
            check_track_lines(p, 3, "track VIDEO --json")
        cli.ok(["track", clip, "--points", "60", "--draw", cli.o("tracks.mp4"), "--timing"])
        cli.ok(["frames", cli.o("tracks.mp4"), cli.o("tracks_back")])
        if len(os.listdir(cli.o("tracks_back"))) != 3:
            fail("track --draw tracks.mp4 holds %d frames" % len(os.listdir(cli.o("tracks_back"))))

    # Bad parameters and frames: one line, nothing written.
    draw = ["--draw", cli.o("bad.mp4" if have_video else "bad")]
    cli.fails(["track", gray, "--win", "4"] + draw, "--win")
    cli.fails(["track", gray, "--win", "21x8"] + draw, "--win")
    cli.fails(["track", gray, "--win", "1"] + draw, "--win")
    cli.fails(["track", gray, "--levels", "-1"] + draw, "--levels")
    cli.fails(["track", gray, "--points", "0"] + draw, "--points")
    cli.fails(["track", gray, "--quality", "0"] + draw, "--quality")
    cli.fails(["track", gray, "--redetect-below", "-2"] + draw, "--redetect-below")
    cli.fails(["track", pngs[0], cli.i("good.png")] + draw, "same size and type")  # 320x240 grey, 64x48 RGB
    cli.fails(["track", cli.i("good.png"), cli.i("gray.png")] + draw, "same size and type")
    with open(cli.i("flat.png"), "wb") as f:
        f.write(flat_png(64, 48))
    cli.fails(["track", cli.i("flat.png"), cli.i("flat.png")] + draw, "no corners")
    cli.fails(["track", cli.i("missing.png")] + draw, "missing.png")
    cli.fails(["track", cli.i("corrupt.png"), cli.i("good.png")] + draw, "corrupt.png")
    cli.fails(["track", gray, "--draw", cli.o("tracks")], "--force")  # exists
    if any(n.startswith(".") for n in os.listdir(cli.out)):
        fail("temporary files left: %s" % os.listdir(cli.out))


def flat_png(width, height):
    """A grey PNG of one value: no corner anywhere."""
    import zlib
    rows = b"".join(b"\x00" + bytes([128]) * width for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


GROUPS = {"video": group_video, "track": group_track}

if __name__ == "__main__":
    cli_test.GROUPS = GROUPS
    sys.exit(cli_test.main())
