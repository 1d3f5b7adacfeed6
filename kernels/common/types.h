/* Depth codes shared with the host (src/core/program_cache.cpp passes them as -D values) and
 * conversions between accumulators and stored values. */
#ifndef PLINTH_TYPES_H
#define PLINTH_TYPES_H

#define DEPTH_U8 0
#define DEPTH_S8 1
#define DEPTH_U16 2
#define DEPTH_S16 3
#define DEPTH_U32 4
#define DEPTH_S32 5
#define DEPTH_U64 6
#define DEPTH_S64 7
#define DEPTH_F32 8
#define DEPTH_F64 9

#define DEPTH_IS_FLOAT(d) ((d) == DEPTH_F32 || (d) == DEPTH_F64)

#endif
