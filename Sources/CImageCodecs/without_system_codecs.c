// The interface of CImageCodecs.h when the target is built without the system's image libraries (their headers were
// not installed: see Package.swift): every call says so instead of decoding, so that the rest of the package builds.
#include "CImageCodecs.h"

#include <stdio.h>
#include <string.h>

#if defined(COURIER_SYSTEM_CODECS)
int ci_system_codecs_available(void) { return 1; }
#else
int ci_system_codecs_available(void) { return 0; }
#endif

#if defined(__linux__) && !defined(COURIER_SYSTEM_CODECS)
static ci_status unavailable(ci_image_info *info) {
    if (info) {
        memset(info, 0, sizeof *info);
        snprintf(info->message, sizeof info->message, "%s",
                 "CourierImage was built without the system's image libraries "
                 "(apt-get install libjpeg62-turbo-dev libpng-dev libwebp-dev libgif-dev, then build again)");
    }
    return CI_STATUS_UNSUPPORTED;
}

ci_status ci_jpeg_read_info(const uint8_t *bytes, size_t count, unsigned scale_denominator, ci_image_info *info) {
    (void)bytes; (void)count; (void)scale_denominator;
    return unavailable(info);
}

ci_status ci_jpeg_decode_rgba(const uint8_t *bytes, size_t count, unsigned scale_denominator, int allow_truncated,
                              uint8_t *pixels, size_t pixel_bytes, ci_image_info *info) {
    (void)bytes; (void)count; (void)scale_denominator; (void)allow_truncated; (void)pixels; (void)pixel_bytes;
    return unavailable(info);
}

ci_status ci_png_read_info(const uint8_t *bytes, size_t count, ci_image_info *info) {
    (void)bytes; (void)count;
    return unavailable(info);
}

ci_status ci_png_decode_rgba(const uint8_t *bytes, size_t count, uint8_t *pixels, size_t pixel_bytes, ci_image_info *info) {
    (void)bytes; (void)count; (void)pixels; (void)pixel_bytes;
    return unavailable(info);
}

ci_status ci_webp_read_info(const uint8_t *bytes, size_t count, ci_image_info *info) {
    (void)bytes; (void)count;
    return unavailable(info);
}

ci_status ci_webp_decode_rgba(const uint8_t *bytes, size_t count, uint8_t *pixels, size_t pixel_bytes, ci_image_info *info) {
    (void)bytes; (void)count; (void)pixels; (void)pixel_bytes;
    return unavailable(info);
}

ci_status ci_gif_read_info(const uint8_t *bytes, size_t count, ci_image_info *info) {
    (void)bytes; (void)count;
    return unavailable(info);
}

ci_animation *ci_animation_open_webp(const uint8_t *bytes, size_t count, ci_image_info *info, ci_status *status) {
    (void)bytes; (void)count;
    ci_status result = unavailable(info);
    if (status) *status = result;
    return NULL;
}

ci_animation *ci_animation_open_gif(const uint8_t *bytes, size_t count, uint64_t max_frame_pixels, ci_image_info *info,
                                    ci_status *status) {
    (void)bytes; (void)count; (void)max_frame_pixels;
    ci_status result = unavailable(info);
    if (status) *status = result;
    return NULL;
}

ci_status ci_animation_next(ci_animation *animation, uint8_t *pixels, size_t pixel_bytes, uint32_t *duration_ms,
                            ci_image_info *info) {
    (void)animation; (void)pixels; (void)pixel_bytes; (void)duration_ms;
    return unavailable(info);
}

void ci_animation_close(ci_animation *animation) { (void)animation; }
#endif
