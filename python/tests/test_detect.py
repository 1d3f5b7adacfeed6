"""Cascade detection against cv2.CascadeClassifier (OpenCV's CPU path) on the bundled photo."""
import numpy as np
import pytest

import plinth
from conftest import cv2

CASCADES = "/usr/share/opencv4/haarcascades"


def sorted_rects(rects):
    return sorted(map(tuple, np.asarray(rects).reshape(-1, 4).tolist()))


@pytest.mark.parametrize("name", ["haarcascade_frontalface_alt2.xml", "haarcascade_eye.xml"])
def test_detect_multi_scale_equals_cv2(photo_gray, name):
    ours = plinth.CascadeClassifier(f"{CASCADES}/{name}")
    ref = cv2.CascadeClassifier(f"{CASCADES}/{name}")
    got = ours.detectMultiScale(photo_gray, scaleFactor=1.1, minNeighbors=3, minSize=(20, 20))
    want = ref.detectMultiScale(photo_gray, scaleFactor=1.1, minNeighbors=3, minSize=(20, 20))
    assert got.dtype == np.int32 and got.shape[1:] == (4,)
    assert len(got) > 0
    assert sorted_rects(got) == sorted_rects(want)


def test_detect_by_name_batch_and_device(photo_gray):
    cascade = plinth.CascadeClassifier("frontalface_alt2")
    assert cascade.window_size == (20, 20) and cascade.feature_type == "haar"
    small = cv2.resize(photo_gray, (256, 256))
    batch = cascade.detectMultiScaleBatch([photo_gray, small])
    assert sorted_rects(batch[0]) == sorted_rects(cascade.detectMultiScale(photo_gray))
    assert sorted_rects(batch[1]) == sorted_rects(cascade.detectMultiScale(small))
    device = plinth.default_queue().upload(photo_gray)
    assert sorted_rects(cascade.detectMultiScale(device)) == sorted_rects(batch[0])
    rects, neighbors = cascade.detectMultiScale2(photo_gray)
    assert len(rects) == len(neighbors) and (neighbors >= 4).all()


def test_detect_refuses_colour_images(photo_bgr):
    with pytest.raises(plinth.Error):
        plinth.CascadeClassifier("frontalface_alt2").detectMultiScale(photo_bgr)


def test_group_rectangles_equals_cv2():
    rects = np.array([[10, 10, 20, 20], [11, 10, 20, 21], [12, 11, 19, 20], [100, 100, 30, 30], [101, 99, 30, 31]], np.int32)
    got, weights = plinth.groupRectangles(rects, 1)
    want, want_weights = cv2.groupRectangles(rects.tolist(), 1)
    assert sorted_rects(got) == sorted_rects(want)
    assert sorted(weights.tolist()) == sorted(np.asarray(want_weights).ravel().tolist())
