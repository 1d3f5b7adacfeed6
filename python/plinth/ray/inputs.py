"""Inputs of a job: directories (searched recursively), glob patterns, files and videos."""
import glob
import os

IMAGE_EXTENSIONS = {".png", ".jpg", ".jpeg", ".bmp", ".pgm", ".ppm", ".pnm", ".tif", ".tiff", ".webp"}
VIDEO_EXTENSIONS = {".avi", ".mp4", ".mkv", ".mov", ".webm", ".m4v", ".mpg", ".mpeg"}


def kind_of(path):
    ext = os.path.splitext(path)[1].lower()
    return "video" if ext in VIDEO_EXTENSIONS else "image"


def expand_inputs(inputs):
    """The work items of `inputs` (paths, directories or glob patterns), in a stable order: dicts with
    "path" and "kind" ("image" or "video"). Files named directly are kept whatever their extension (an
    unreadable one is reported by the job); directories and patterns contribute image and video files.
    A name that matches nothing raises FileNotFoundError before the job starts."""
    items, seen = [], set()

    def add(path):
        if path not in seen:
            seen.add(path)
            items.append({"path": path, "kind": kind_of(path)})

    known = IMAGE_EXTENSIONS | VIDEO_EXTENSIONS
    for entry in inputs:
        if os.path.isdir(entry):
            for root, dirs, files in os.walk(entry):
                dirs.sort()
                for name in sorted(files):
                    if os.path.splitext(name)[1].lower() in known:
                        add(os.path.join(root, name))
        elif os.path.exists(entry):
            add(entry)
        else:
            matches = sorted(glob.glob(entry, recursive=True))
            if not matches:
                raise FileNotFoundError(f"plinth.ray: no such file, directory or match: {entry}")
            for path in matches:
                if os.path.isfile(path) and os.path.splitext(path)[1].lower() in known:
                    add(path)
    return items
