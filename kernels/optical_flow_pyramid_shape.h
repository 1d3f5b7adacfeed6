/* build_optical_flow_pyramid's fused kernel (kernels/optical_flow_pyramid.cl, flow_pyramid_fused):
 * the shapes that the host (src/ops/optical_flow_pyramid.cpp) and the kernel both know. Plain
 * #defines, read by the C++ host and by OpenCL C. */
#ifndef PLINTH_OPTICAL_FLOW_PYRAMID_SHAPE_H
#define PLINTH_OPTICAL_FLOW_PYRAMID_SHAPE_H

/* Work-group shape of every job; a down job's tile is one level pixel per work-item. */
#define OFP_GX 32
#define OFP_GY 8

#endif
