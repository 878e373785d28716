// The boundary between CourierImage and the system's C image libraries (libjpeg-turbo, libpng, libwebp, giflib).
//
// libjpeg and libpng report a fatal error by `longjmp`ing out of the failing call. Swift cannot be unwound that way:
// a jump across Swift frames skips their releases and deinitializers. So every call into those libraries happens in
// this target, under a `setjmp` taken here, and each function below returns a status instead. libwebp and giflib
// return errors; they are wrapped here too, so that Swift sees one interface. Nothing here calls back into Swift,
// prints to standard error or aborts the process.
//
// The functions read an encoded image from memory (`bytes`, `count`) and write 8-bit RGBA pixels (red, green, blue,
// alpha, straight alpha, rows top to bottom with no padding: `width * 4` bytes a row) into a buffer the caller has
// allocated after reading the image's size with the matching `*_read_info` function. They keep no state between
// calls and are safe to call from several threads at once. Animations (GIF, animated WebP) are read a frame at a
// time through a `ci_animation`, which one thread uses at a time.
#ifndef COURIER_IMAGE_CODECS_H
#define COURIER_IMAGE_CODECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a call did.
typedef enum {
    /// The image was read.
    CI_STATUS_OK = 0,
    /// The library refused the data; `message` says why, in the library's words.
    CI_STATUS_CORRUPT = 1,
    /// The data ended before the image did.
    CI_STATUS_TRUNCATED = 2,
    /// A well-formed image this decoder cannot turn into RGBA; `message` names what.
    CI_STATUS_UNSUPPORTED = 3,
    /// The library could not allocate its working memory.
    CI_STATUS_OUT_OF_MEMORY = 4,
    /// The caller's buffer is not `width * height * 4` bytes, or an argument is out of range.
    CI_STATUS_BAD_ARGUMENT = 5,
    /// An animation has no more frames.
    CI_STATUS_END = 6,
    /// A frame is larger than the pixel limit the animation was opened with.
    CI_STATUS_TOO_LARGE = 7,
} ci_status;

/// The colours an image is stored in.
typedef enum {
    CI_COLOR_GRAY = 1,
    CI_COLOR_RGB = 3,
    CI_COLOR_CMYK = 4,
    CI_COLOR_PALETTE = 5,
} ci_color_model;

/// What the header says, and the library's message when a call fails.
typedef struct {
    /// The size of the pixels the decode call writes (after JPEG's DCT scaling; the image's own size otherwise).
    uint32_t width;
    uint32_t height;
    /// The image's size as stored.
    uint32_t stored_width;
    uint32_t stored_height;
    /// A `ci_color_model`.
    int32_t color_model;
    /// Bits per sample as stored (JPEG: 8 or 12; PNG: 1, 2, 4, 8 or 16).
    int32_t bit_depth;
    /// Whether the image has an alpha channel or a transparent colour (PNG).
    int32_t has_alpha;
    /// Progressive (JPEG) or Adam7-interlaced (PNG).
    int32_t is_progressive;
    /// Set by a decode call that was allowed to stop early (`allow_truncated`) and did.
    int32_t was_truncated;
    /// Whether the image is an animation (GIF: always, a still GIF is an animation of one frame; WebP: the
    /// animation flag). Read its frames with a `ci_animation`.
    int32_t is_animated;
    /// WebP: lossless (1) or lossy (0) for a still image.
    int32_t is_lossless;
    /// The library's words when the status is not `CI_STATUS_OK`, NUL-terminated.
    char message[200];
} ci_image_info;

/// Reads a JPEG's header. `scale_denominator` (1, 2, 4 or 8) asks for the image scaled by 1/N in the decoder's DCT;
/// `width` and `height` are then the scaled size.
ci_status ci_jpeg_read_info(const uint8_t *bytes, size_t count, unsigned scale_denominator, ci_image_info *info);

/// Decodes a JPEG into `pixels` (`width * height * 4` bytes of the size `ci_jpeg_read_info` gave for the same
/// `scale_denominator`). Greyscale and YCbCr are converted by libjpeg-turbo; CMYK and YCCK (Adobe's inverted
/// CMYK when the file has Adobe's marker) are converted here as `R = (255 - C) * (255 - K) / 255`, as Pillow does.
/// With `allow_truncated` non-zero, data that ends early decodes to what it holds (the rest grey, or the scans so
/// far for a progressive image) and sets `was_truncated`; otherwise it is `CI_STATUS_TRUNCATED`.
ci_status ci_jpeg_decode_rgba(const uint8_t *bytes, size_t count, unsigned scale_denominator, int allow_truncated,
                              uint8_t *pixels, size_t pixel_bytes, ci_image_info *info);

/// Reads a PNG's header (`IHDR`, and whether a `tRNS` chunk adds transparency).
ci_status ci_png_read_info(const uint8_t *bytes, size_t count, ci_image_info *info);

/// Decodes a PNG into `pixels` (`width * height * 4` bytes): palettes and low bit depths expanded, a `tRNS` colour
/// made transparent, 16-bit samples reduced to their high byte (as Pillow's 8-bit modes do), greyscale copied to
/// red, green and blue, interlacing undone, and no gamma correction (the samples as stored, as Pillow and browsers
/// without colour management show them).
ci_status ci_png_decode_rgba(const uint8_t *bytes, size_t count, uint8_t *pixels, size_t pixel_bytes,
                             ci_image_info *info);

/// Reads a WebP's header: for an animation, the canvas's size and `is_animated`.
ci_status ci_webp_read_info(const uint8_t *bytes, size_t count, ci_image_info *info);

/// Decodes a still WebP (lossy, lossless, with or without alpha) into `pixels` (`width * height * 4` bytes).
ci_status ci_webp_decode_rgba(const uint8_t *bytes, size_t count, uint8_t *pixels, size_t pixel_bytes,
                              ci_image_info *info);

/// Reads a GIF's logical screen (its canvas: `width` and `height`).
ci_status ci_gif_read_info(const uint8_t *bytes, size_t count, ci_image_info *info);

/// An animation being read, a frame at a time, composed on its canvas as browsers show it.
typedef struct ci_animation ci_animation;

/// Opens an animated WebP or a GIF (`bytes` must outlive the animation). `max_frame_pixels` bounds each frame's
/// own rectangle (a GIF frame may be declared larger than its canvas). NULL on failure, with `status` and
/// `info->message` saying why.
ci_animation *ci_animation_open_webp(const uint8_t *bytes, size_t count, ci_image_info *info, ci_status *status);
ci_animation *ci_animation_open_gif(const uint8_t *bytes, size_t count, uint64_t max_frame_pixels, ci_image_info *info,
                                    ci_status *status);

/// Writes the next frame, composed on the canvas (`width * height * 4` bytes of RGBA), and how long it is shown in
/// milliseconds. `CI_STATUS_END` after the last frame. A GIF's frames are composed with their disposal methods
/// (none, leave, restore to the background, which is transparent as browsers make it, restore to previous) and
/// transparent colour; a WebP's by libwebp's animation decoder.
ci_status ci_animation_next(ci_animation *animation, uint8_t *pixels, size_t pixel_bytes, uint32_t *duration_ms,
                            ci_image_info *info);

/// Frees the animation.
void ci_animation_close(ci_animation *animation);

/// 1 when this target was built with the system's image libraries (on Linux, when their headers were installed at
/// build time: the package defines COURIER_SYSTEM_CODECS), 0 when it was built without them: then every function
/// above returns `CI_STATUS_UNSUPPORTED` (and the animation openers NULL) with `message` naming the packages.
int ci_system_codecs_available(void);

#ifdef __cplusplus
}
#endif

#endif
