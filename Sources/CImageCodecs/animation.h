// The animation reader shared by gif_decoder.c and webp_decoder.c (private to this target).
#ifndef COURIER_IMAGE_ANIMATION_H
#define COURIER_IMAGE_ANIMATION_H

#include "CImageCodecs.h"

#if defined(__linux__)
#include <gif_lib.h>
#include <webp/demux.h>

typedef enum { CI_ANIMATION_GIF, CI_ANIMATION_WEBP } ci_animation_kind;

typedef struct {
    const uint8_t *bytes;
    size_t count;
    size_t offset;
} ci_memory_reader;

struct ci_animation {
    ci_animation_kind kind;
    uint32_t width;
    uint32_t height;
    // GIF: the reader, the canvas as composed so far, the canvas before the last frame (for "restore to
    // previous"), and how the last frame is to be disposed of before the next one is drawn.
    ci_memory_reader reader;
    GifFileType *gif;
    uint64_t max_frame_pixels;
    uint8_t *canvas;
    uint8_t *previous;
    GifPixelType *line;
    int last_disposal;
    int last_left, last_top, last_width, last_height;
    // WebP: libwebp's decoder, and the end of the last frame in milliseconds.
    WebPAnimDecoder *webp;
    int last_timestamp;
};

ci_status ci_gif_next(ci_animation *animation, uint8_t *pixels, uint32_t *duration_ms, ci_image_info *info);
void ci_gif_close(ci_animation *animation);
#endif

#endif
