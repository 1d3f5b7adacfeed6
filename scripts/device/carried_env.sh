# Sourced THERE by the device scripts (filters.sh, pyr_lk.sh), from the repository root with
# .carry/device from scripts/device/prepare.sh: c (the carried folder), OUT, work (a fresh folder),
# a fresh program cache, the carried cascades and libraries, NVIDIA's OpenCL driver registered for
# this process when it is installed but not listed, and the GPU and plinth's devices printed.
c=$(pwd)/.carry/device
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
work=$(mktemp -d); export PLINTH_CACHE_DIR=$work/cache
export LD_LIBRARY_PATH=$c/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PLINTH_CASCADE_DIR=${PLINTH_CASCADE_DIR:-$c/prefix/share/cascades}
if ldconfig -p | grep -q libnvidia-opencl.so.1; then  # NVIDIA's OpenCL is installed but not registered
  mkdir -p "$work/vendors"; cp /etc/OpenCL/vendors/*.icd "$work/vendors/" 2>/dev/null
  echo libnvidia-opencl.so.1 > "$work/vendors/nvidia.icd"; export OCL_ICD_VENDORS=$work/vendors
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$c/bin/plinth" devices
