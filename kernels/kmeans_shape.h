/* k-means on the device: the shapes that host code (src/ops/kmeans.cpp) and kernels
 * (kernels/kmeans.cl) both know. Plain #defines, read by the C++ host and by OpenCL C alike. */
#ifndef PLINTH_KMEANS_SHAPE_H
#define PLINTH_KMEANS_SHAPE_H

/* Work-items of every k-means work-group, and the samples of one k-means++ weight block (one
 * work-group of the trial kernel sums its block in double). */
#define KMEANS_GROUP 256
/* Samples (in label order) summed sequentially into one partial centre sum. A cluster of fewer
 * samples is summed wholly in sample order, as cv::kmeans. */
#define KMEANS_CHUNK 128
/* Candidates drawn per new centre in k-means++ (cv::kmeans' SPP_TRIALS). */
#define KMEANS_TRIALS 3
/* Samples per run of the bounding-box reduction (random centres). */
#define KMEANS_BOUNDS_RUN 16384
/* Status words read back after each centre update (doubles): the largest squared shift, and a
 * flag: 1 a negative label (squared distances overflowed float), 2 a label >= k. */
#define KMEANS_STATUS_SHIFT 0
#define KMEANS_STATUS_FLAG 1
#define KMEANS_STATUS_WORDS 2

#endif
