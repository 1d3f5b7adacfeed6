// The implementations of the stb single-header libraries (Debian's libstb-dev headers).
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_NO_HDR
#define STBI_NO_PIC
#define STBI_NO_PSD
#define STBI_NO_GIF
#define STBI_NO_TGA
#define STBI_NO_JPEG  // libjpeg-turbo reads JPEG (src/io/jpeg.cpp), as OpenCV does
#define STBI_NO_PNM  // plinth reads PGM / PPM itself (src/io/pnm.cpp)
#define STBI_MAX_DIMENSIONS (1 << 17)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wshadow"
#include <stb_image.h>
#include <stb_image_write.h>
#pragma GCC diagnostic pop
