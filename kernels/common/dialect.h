/* plinth's portable kernel dialect. Kernels write qualifiers, ids, barriers, atomics and image
 * parameters through these macros only, and keep to OpenCL C 1.2 with buffers (no image objects,
 * no samplers), so that a CUDA build can map the same files through NVRTC by defining this
 * header's macros for CUDA. */
#ifndef PLINTH_DIALECT_H
#define PLINTH_DIALECT_H

#if defined(__CUDACC__)
/* CUDA through NVRTC (src/backend/cuda): OpenCL C's types and built-ins come from
 * dialect_cuda.h and the generated cuda_builtins.h; the backend defines PLINTH_NVIDIA and
 * PLINTH_CUDA and compiles with -fmad=false (no contraction, as FP_CONTRACT OFF below). */
#include "common/dialect_cuda.h"
#include "common/cuda_builtins.h"

#define KERNEL extern "C" __global__
#define GLOBAL
#define LOCAL
#define CONSTANT
#define LOCAL_MEM __shared__
#define CONSTANT_MEM __constant__ const
#define LOCAL_PARAM(T, name) pl_local<T> name
#define INLINE inline
#define RESTRICT __restrict__
#define REQD_GROUP_SIZE(x, y, z) __launch_bounds__((x) * (y) * (z))
/* A one-dimensional group of x that should fit `groups` times on a compute unit (CUDA: registers
 * limited accordingly; OpenCL: only the group size). */
#define REQD_GROUP_SIZE_RESIDENT(x, groups) __launch_bounds__((x), (groups))
#define UNROLL _Pragma("unroll")

#define GLOBAL_ID(d) ((int)(pl_dim(blockIdx, d) * pl_dim(blockDim, d) + pl_dim(threadIdx, d)))
#define LOCAL_ID(d) ((int)pl_dim(threadIdx, d))
#define GROUP_ID(d) ((int)pl_dim(blockIdx, d))
#define LOCAL_SIZE(d) ((int)pl_dim(blockDim, d))
#define NUM_GROUPS(d) ((int)pl_dim(gridDim, d))
#define GLOBAL_SIZE(d) ((int)(pl_dim(gridDim, d) * pl_dim(blockDim, d)))

#define BARRIER_LOCAL() __syncthreads()
#define BARRIER_ALL() __syncthreads()

#define ATOMIC_ADD(p, v) pl_atomic_add((p), (v))
#define ATOMIC_INC(p) pl_atomic_inc(p)
#define ATOMIC_OR(p, v) pl_atomic_or((p), (v))
#define ATOMIC_XCHG(p, v) pl_atomic_xchg((p), (v))
#define ATOMIC_MAX(p, v) pl_atomic_max((p), (v))

/* Vector values from scalars, and a vector (or scalar) filled with one value. OpenCL C's
 * literal (int4)(a, b, c, d) would compile in C++ as a cast of a comma expression. */
#define VEC2(T, a, b) pl_make<T>((a), (b))
#define VEC3(T, a, b, c) pl_make<T>((a), (b), (c))
#define VEC4(T, a, b, c, d) pl_make<T>((a), (b), (c), (d))
#define SPLAT(T, x) pl_splat<T>(x)
/* Byte order: NVIDIA GPUs are little-endian (OpenCL's __ENDIAN_LITTLE__ is not defined here). */
#define PLINTH_LITTLE_ENDIAN 1
#else
/* Exactness: no silent fusing of a*b+c into fma; a kernel that wants fma calls it. */
#pragma OPENCL FP_CONTRACT OFF

#if defined(PLINTH_NEED_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if defined(PLINTH_NEED_INT64_ATOMICS)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

#define KERNEL __kernel
#define GLOBAL __global
#define LOCAL __local
/* A variable in local memory (LOCAL_MEM uint tile[N];), a constant table at program scope
 * (CONSTANT_MEM float g[3] = {...};) and a local-memory kernel argument that the host passes
 * with Launch::local(bytes) (LOCAL_PARAM(uint, bins)). LOCAL and CONSTANT alone qualify
 * pointers: CUDA tells the two uses apart. */
#define LOCAL_MEM __local
#define CONSTANT_MEM __constant
#define LOCAL_PARAM(T, name) __local T* name
#define CONSTANT __constant
#define INLINE inline
#define RESTRICT restrict
#define REQD_GROUP_SIZE(x, y, z) __attribute__((reqd_work_group_size(x, y, z)))
#define REQD_GROUP_SIZE_RESIDENT(x, groups) __attribute__((reqd_work_group_size(x, 1, 1)))
/* Before a loop with a compile-time trip count whose induction variable indexes private
 * arrays: unrolled, the arrays stay in registers instead of per-thread memory. */
#define UNROLL _Pragma("unroll")

/* Work-item geometry as int (images are below 2^31 elements). */
#define GLOBAL_ID(d) ((int)get_global_id(d))
#define LOCAL_ID(d) ((int)get_local_id(d))
#define GROUP_ID(d) ((int)get_group_id(d))
#define LOCAL_SIZE(d) ((int)get_local_size(d))
#define NUM_GROUPS(d) ((int)get_num_groups(d))
#define GLOBAL_SIZE(d) ((int)get_global_size(d))

#define BARRIER_LOCAL() barrier(CLK_LOCAL_MEM_FENCE)
#define BARRIER_ALL() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

#define ATOMIC_ADD(p, v) atomic_add((p), (v))
#define ATOMIC_INC(p) atomic_inc(p)
#define ATOMIC_XCHG(p, v) atomic_xchg((p), (v))
#define ATOMIC_MAX(p, v) atomic_max((p), (v))
#define ATOMIC_OR(p, v) atomic_or((p), (v))
#define VEC2(T, a, b) ((T)((a), (b)))
#define VEC3(T, a, b, c) ((T)((a), (b), (c)))
#define VEC4(T, a, b, c, d) ((T)((a), (b), (c), (d)))
#define SPLAT(T, x) ((T)(x))
/* Byte order of the device: 1 where bytes of a word go lowest first (kernels that reinterpret
 * loaded words as bytes test this, never OpenCL's own macro, which CUDA does not define). */
#if defined(__ENDIAN_LITTLE__)
#define PLINTH_LITTLE_ENDIAN 1
#else
#define PLINTH_LITTLE_ENDIAN 0
#endif
#endif

/* Publishing data to other work-groups: store the data, DEVICE_FENCE(), then set a flag with an
 * atomic. Readers poll the flag with ATOMIC_LOAD and read the data through volatile pointers.
 * NVIDIA's OpenCL compiler accepts PTX, where membar.gl orders the stores for the whole GPU. */
#if defined(PLINTH_NVIDIA)
#define DEVICE_FENCE() __asm__ volatile("membar.gl;" ::: "memory")
#else
#define DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
/* Backs off a spinning work-item for about `ns` nanoseconds, sparing the memory system. */
#if defined(PLINTH_NVIDIA)
#define SPIN_PAUSE(ns) __asm__ volatile("nanosleep.u32 %0;" ::"r"(ns))
#else
#define SPIN_PAUSE(ns) ((void)(ns))
#endif
/* A work-group's ticket, for single-pass kernels whose work-groups wait on those with earlier
 * tickets: an order in which every earlier work-group has already started, so that no wait can
 * outlast the launch. NVIDIA GPUs start the work-groups of a 1-D launch in increasing id order
 * (NVIDIA's CUB single-pass scans take blockIdx.x as the tile for that reason), so there the id
 * serves at no cost (the atomic took 1.5 of the 25 us of a 3840x2160 integral on the H100);
 * elsewhere an atomic counter at `counter` hands out tickets in the order work-groups really
 * start, less the launch's `base`. 1-D launches only. */
#if defined(PLINTH_NVIDIA)
#define TAKE_TICKET(counter, base) ((uint)GROUP_ID(0))
#else
#define TAKE_TICKET(counter, base) (ATOMIC_INC(counter) - (base))
#endif

/* A load that bypasses incoherent caches, for words other work-groups write while this one runs. */
#define VOLATILE_LOAD(T, p) (*(volatile GLOBAL const T*)(p))
/* A store that leaves no copy in this compute unit's incoherent cache (NVIDIA's L1 caches stores,
 * write-through): for data that other work-groups rewrite and this compute unit may read later
 * in the same launch. Plain stores elsewhere. */
#if defined(PLINTH_NVIDIA)
INLINE void store_past_l1_u32(GLOBAL uint* p, uint v) { __asm__ volatile("st.global.cg.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory"); }
INLINE void store_past_l1_u64(GLOBAL ulong* p, ulong v) { __asm__ volatile("st.global.cg.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory"); }
#else
INLINE void store_past_l1_u32(GLOBAL uint* p, uint v) { *p = v; }
INLINE void store_past_l1_u64(GLOBAL ulong* p, ulong v) { *p = v; }
#endif

/* Streaming stores of 4 values (evict-first in L2 on NVIDIA: outputs written once). */
#if defined(PLINTH_NVIDIA)
INLINE void stream_store4_uint(GLOBAL uint* p, uint4 v) { __asm__ volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)); }
INLINE void stream_store4_ulong(GLOBAL ulong* p, ulong4 v) {
  __asm__ volatile("st.global.cs.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(v.x), "l"(v.y));
  __asm__ volatile("st.global.cs.v2.u64 [%0], {%1, %2};" ::"l"(p + 2), "l"(v.z), "l"(v.w));
}
#else
INLINE void stream_store4_uint(GLOBAL uint* p, uint4 v) { *(GLOBAL uint4*)p = v; }
INLINE void stream_store4_ulong(GLOBAL ulong* p, ulong4 v) { *(GLOBAL ulong4*)p = v; }
#endif
#define stream_store4_int(p, v) stream_store4_uint((GLOBAL uint*)(p), as_uint4(v))
#define stream_store4_float(p, v) stream_store4_uint((GLOBAL uint*)(p), as_uint4(v))
#define stream_store4_long(p, v) stream_store4_ulong((GLOBAL ulong*)(p), as_ulong4(v))
#define stream_store4_double(p, v) stream_store4_ulong((GLOBAL ulong*)(p), as_ulong4(v))

/* Warp shuffles (32 lanes, consecutive work-items of a 1-D work-group). NVIDIA's OpenCL
 * compiler takes PTX; elsewhere kernels use kernels/common/scan.h's local-memory emulation. */
#if defined(PLINTH_NVIDIA)
#define HAS_WARP_SHUFFLE 1
INLINE uint warp_shuffle_up_u32(uint v, int delta) {
  uint r;
  __asm__ volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(v), "r"(delta));
  return r;
}
INLINE uint warp_shuffle_down_u32(uint v, int delta) {
  uint r;
  __asm__ volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(delta));
  return r;
}
INLINE uint warp_shuffle_xor_u32(uint v, int mask) {
  uint r;
  __asm__ volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(mask));
  return r;
}
INLINE uint warp_shuffle_idx_u32(uint v, int lane) {
  uint r;
  __asm__ volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(lane));
  return r;
}
#else
#define HAS_WARP_SHUFFLE 0
#endif

/* Thread-block clusters (CUDA backend, sm_90 and newer; OpenCL has none): the work-groups of a
 * cluster run at the same time on one GPU processing cluster and reach each other's local memory.
 * CLUSTER_DIMS(x, y, z) fixes a kernel's cluster shape at compile time (the CUDA backend allows
 * clusters over 8 groups for such kernels); the groups of a cluster are numbered 0 ..
 * cluster_groups() - 1 in row-major order of their position in it (cluster_rank()). Local memory
 * of another group is written with cluster_store_async_uint4, which counts its 16 bytes on that
 * group's mbarrier (a 64-bit local variable): a group expects its bytes with mbarrier_expect_bytes
 * and waits for them with mbarrier_wait. Before the first such store every group of the cluster
 * must have initialised its mbarrier: mbarrier_init, then cluster_arrive_relaxed in every
 * work-item, and cluster_wait before the stores. */
#if defined(__CUDACC__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define HAS_CLUSTERS 1
#define CLUSTER_DIMS(x, y, z) __cluster_dims__(x, y, z)
INLINE uint cluster_rank(void) {
  uint r;
  __asm__ volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
INLINE uint cluster_groups(void) {
  uint r;
  __asm__ volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}
INLINE uint pl_local_address(const void* p) { return (uint)__cvta_generic_to_shared(p); }
INLINE uint pl_cluster_address(uint local_address, uint rank) {
  uint r;
  __asm__("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(local_address), "r"(rank));
  return r;
}
/* One work-item initialises; the fence makes the initialisation visible to the cluster. */
INLINE void mbarrier_init(LOCAL ulong* bar, uint arrivals) {
  __asm__ volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(pl_local_address(bar)), "r"(arrivals) : "memory");
  __asm__ volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
INLINE void cluster_arrive_relaxed(void) { __asm__ volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }
INLINE void cluster_wait(void) { __asm__ volatile("barrier.cluster.wait.aligned;" ::: "memory"); }
/* One arrival that also expects `bytes` more bytes of asynchronous stores in the current phase. */
INLINE void mbarrier_expect_bytes(LOCAL ulong* bar, uint bytes) {
  __asm__ volatile("mbarrier.arrive.expect_tx.release.cluster.shared::cta.b64 _, [%0], %1;"
                   ::"r"(pl_local_address(bar)), "r"(bytes)
                   : "memory");
}
/* Waits until the phase of parity `parity` (0 for the first) has completed. */
INLINE void mbarrier_wait(LOCAL ulong* bar, uint parity) {
  __asm__ volatile(
      "{\n .reg .pred done;\n PL_MBAR_WAIT_%=:\n"
      " mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra PL_MBAR_WAIT_%=;\n}" ::"r"(pl_local_address(bar)),
      "r"(parity)
      : "memory");
}
/* Stores v into `slot` of the cluster's group `rank` (slot: the address of the same variable in
 * this group's local memory) and counts 16 bytes on that group's mbarrier `bar`. */
INLINE void cluster_store_async_uint4(LOCAL uint4* slot, uint rank, uint4 v, LOCAL ulong* bar) {
  __asm__ volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
                       pl_cluster_address(pl_local_address(slot), rank)),
                   "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "r"(pl_cluster_address(pl_local_address(bar), rank))
                   : "memory");
}
#else
#define HAS_CLUSTERS 0
#define CLUSTER_DIMS(x, y, z)
#endif

/* byte_perm(x, y, s): byte i of the result is byte (s >> 4i) & 7 of the 8 bytes y:x (x holds bytes
 * 0-3), as CUDA's __byte_perm: one instruction (prmt) on NVIDIA GPUs, where compilers turn shifts
 * and masks of bytes into two or three. */
#if defined(PLINTH_NVIDIA)
INLINE uint byte_perm(uint x, uint y, uint s) {
  uint r;
  __asm__("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(s));
  return r;
}
#else
INLINE uint byte_perm(uint x, uint y, uint s) {
  uint r = 0u;
  for (int i = 0; i < 4; ++i) {
    const uint b = (s >> (4 * i)) & 7u;
    r |= ((b < 4u ? x >> (8u * b) : y >> (8u * (b - 4u))) & 0xffu) << (8 * i);
  }
  return r;
}
#endif

/* The NVIDIA architecture, as compute capability major * 10 + minor (90 for Hopper); 0 where
 * unknown or not NVIDIA. NVRTC says it through __CUDA_ARCH__; the OpenCL backend passes
 * -D PLINTH_NVIDIA_ARCH=N on NVIDIA devices that report it (cl_nv_device_attribute_query). */
#if !defined(PLINTH_NVIDIA_ARCH)
#if defined(PLINTH_NVIDIA) && defined(__CUDA_ARCH__)
#define PLINTH_NVIDIA_ARCH (__CUDA_ARCH__ / 10)
#else
#define PLINTH_NVIDIA_ARCH 0
#endif
#endif

/* Two unsigned 16-bit lanes per 32-bit word (lane 0 in bits 0-15): lane-wise minimum and maximum
 * of two or three words. NVIDIA sm_90 and newer: PTX min/max.u16x2, which ptxas issues as one
 * VIMNMX.U16x2, and the three-operand forms as one VIMNMX3.U16x2 (a two-instruction PTX block
 * it fuses). Elsewhere (older NVIDIA GPUs included) the same results lane by lane.
 * PLINTH_NATIVE_U16X2_MINMAX says which. */
#if defined(PLINTH_NVIDIA) && PLINTH_NVIDIA_ARCH >= 90
#define PLINTH_NATIVE_U16X2_MINMAX 1
INLINE uint min_u16x2(uint a, uint b) {
  uint r;
  __asm__("min.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
INLINE uint max_u16x2(uint a, uint b) {
  uint r;
  __asm__("max.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
INLINE uint min3_u16x2(uint a, uint b, uint c) {
  uint r;
  __asm__("{.reg .b32 t; min.u16x2 t, %1, %2; min.u16x2 %0, t, %3;}" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
INLINE uint max3_u16x2(uint a, uint b, uint c) {
  uint r;
  __asm__("{.reg .b32 t; max.u16x2 t, %1, %2; max.u16x2 %0, t, %3;}" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
#else
#define PLINTH_NATIVE_U16X2_MINMAX 0
INLINE uint min_u16x2(uint a, uint b) { return min(a & 0xFFFFu, b & 0xFFFFu) | (min(a >> 16, b >> 16) << 16); }
INLINE uint max_u16x2(uint a, uint b) { return max(a & 0xFFFFu, b & 0xFFFFu) | (max(a >> 16, b >> 16) << 16); }
INLINE uint min3_u16x2(uint a, uint b, uint c) { return min_u16x2(min_u16x2(a, b), c); }
INLINE uint max3_u16x2(uint a, uint b, uint c) { return max_u16x2(max_u16x2(a, b), c); }
#endif

/* a * b + c modulo 2^32 as one multiply-add: on NVIDIA an IMAD, on the FMA pipe. With b a
 * 1 or 0xFFFFFFFF that the compiler cannot see as a constant (ptxas rewrites a literal one into
 * IADD3), this moves additions off a busy integer ALU pipe. Elsewhere plain arithmetic. */
#if defined(PLINTH_NVIDIA)
INLINE uint imad_u32(uint a, uint b, uint c) {
  uint r;
  __asm__("mad.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
#else
INLINE uint imad_u32(uint a, uint b, uint c) { return a * b + c; }
#endif
/* c + a.lo16 * b.byte0 + a.hi16 * b.byte1 (dp2a_lo) or with bytes 2, 3 (dp2a_hi): a's 16-bit halves
 * signed, b's bytes unsigned (PTX dp2a.lo / dp2a.hi .s32.u32), modulo 2^32. One instruction on
 * NVIDIA sm_61 and newer under both backends (NVIDIA's OpenCL compiler takes the PTX too: pyrLK's
 * bilinear sums took 9% longer there as plain arithmetic, docs/PERFORMANCE.md); elsewhere plain
 * arithmetic. */
#if defined(PLINTH_NVIDIA) && PLINTH_NVIDIA_ARCH >= 61
INLINE int dp2a_lo(int a, uint b, int c) {
  int d;
  __asm__("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
INLINE int dp2a_hi(int a, uint b, int c) {
  int d;
  __asm__("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
#else
INLINE int dp2a_lo(int a, uint b, int c) { return c + (int)(short)(a & 0xffff) * (int)(b & 0xff) + (a >> 16) * (int)((b >> 8) & 0xff); }
INLINE int dp2a_hi(int a, uint b, int c) { return c + (int)(short)(a & 0xffff) * (int)((b >> 16) & 0xff) + (a >> 16) * (int)(b >> 24); }
#endif

/* The constant c as a value no compiler can fold, for imad_u32's 1 and 0xFFFFFFFF: c plus the
 * sign bit of `non_negative`, a kernel argument the caller knows is not negative (a row step). */
INLINE uint opaque_u32(uint c, int non_negative) { return c + (uint)(non_negative >> 31); }

/* An image argument is three kernel parameters: base pointer, offset and pitch in elements;
 * the host side (src/core/launch.hpp) passes them in that order. */
#define IMAGE_PARAM(T, name) GLOBAL T* RESTRICT name, int name##_offset, int name##_step
#define CONST_IMAGE_PARAM(T, name) GLOBAL const T* RESTRICT name, int name##_offset, int name##_step
/* Element index of row y, element x (x counts channels: pixel * channels + channel). */
#define IMAGE_INDEX(name, x, y) ((name##_offset) + (y) * (name##_step) + (x))
#define IMAGE_AT(name, x, y) name[IMAGE_INDEX(name, x, y)]

/* An array argument (plinth::DeviceArray) is two kernel parameters: base pointer and offset in
 * elements; Launch::array passes them in that order. Element i (channels counted) is ARRAY_AT. */
#define ARRAY_PARAM(T, name) GLOBAL T* RESTRICT name, int name##_offset
#define CONST_ARRAY_PARAM(T, name) GLOBAL const T* RESTRICT name, int name##_offset
#define ARRAY_AT(name, i) name[(name##_offset) + (i)]

#endif
