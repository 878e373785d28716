// libpng behind a setjmp: see CImageCodecs.h.
// Linux only: Apple platforms decode through ImageIO, and these libraries are not there.
#if defined(__linux__) && defined(COURIER_SYSTEM_CODECS)
#include "CImageCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

typedef struct {
    jmp_buf jump;
    ci_image_info *info;
    const uint8_t *bytes;
    size_t count;
    size_t offset;
    /// Set when libpng asked for bytes past the end of the data.
    int ran_out;
    /// Freed after a jump as well as on the way out.
    png_bytep *rows;
} png_reading;

static void jump_out(png_structp png, png_const_charp message) {
    png_reading *reading = (png_reading *)png_get_error_ptr(png);
    snprintf(reading->info->message, sizeof reading->info->message, "%s", message ? message : "libpng failed");
    longjmp(reading->jump, 1);
}

// Warnings (an unknown chunk, a bad CRC in an ancillary one) are not errors and are never printed.
static void ignore_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

// Reads from memory; past the end it is an error libpng reports through jump_out.
static void read_from_memory(png_structp png, png_bytep destination, size_t length) {
    png_reading *reading = (png_reading *)png_get_io_ptr(png);
    if (length > reading->count - reading->offset) {
        reading->ran_out = 1;
        png_error(png, "the data ends before the image does");
    }
    memcpy(destination, reading->bytes + reading->offset, length);
    reading->offset += length;
}

static const uint8_t png_signature_bytes[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};

// Makes the reader, runs `body` under its setjmp, and tears everything down. `pixels` NULL: the header only.
static ci_status read_png(const uint8_t *bytes, size_t count, uint8_t *pixels, size_t pixel_bytes, ci_image_info *info) {
    if (!bytes || !info) return CI_STATUS_BAD_ARGUMENT;
    memset(info, 0, sizeof *info);
    if (count < 8 || memcmp(bytes, png_signature_bytes, 8) != 0) {
        snprintf(info->message, sizeof info->message, count < 8 ? "the data ends inside the signature" : "not a PNG signature");
        return count < 8 ? CI_STATUS_TRUNCATED : CI_STATUS_CORRUPT;
    }
    png_reading reading;
    memset(&reading, 0, sizeof reading);
    reading.info = info;
    reading.bytes = bytes;
    reading.count = count;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reading, jump_out, ignore_warning);
    if (!png) return CI_STATUS_OUT_OF_MEMORY;
    png_infop header = png_create_info_struct(png);
    if (!header) {
        png_destroy_read_struct(&png, NULL, NULL);
        return CI_STATUS_OUT_OF_MEMORY;
    }
    if (setjmp(reading.jump)) {
        free(reading.rows);
        png_destroy_read_struct(&png, &header, NULL);
        return reading.ran_out ? CI_STATUS_TRUNCATED : CI_STATUS_CORRUPT;
    }
    png_set_read_fn(png, &reading, read_from_memory);
    // The caller checks the pixel count against its own limit; libpng's 1,000,000 × 1,000,000 default stays as the
    // outer bound, and text chunks are bounded by libpng's 8 MB default for ancillary chunks.
    png_read_info(png, header);

    png_uint_32 width = 0, height = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(png, header, &width, &height, &depth, &color, &interlace, NULL, NULL);
    info->width = info->stored_width = width;
    info->height = info->stored_height = height;
    info->bit_depth = depth;
    info->is_progressive = interlace != PNG_INTERLACE_NONE;
    info->has_alpha = (color & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, header, PNG_INFO_tRNS);
    info->color_model = color == PNG_COLOR_TYPE_PALETTE ? CI_COLOR_PALETTE : (color & PNG_COLOR_MASK_COLOR) ? CI_COLOR_RGB : CI_COLOR_GRAY;
    if (!pixels) {
        png_destroy_read_struct(&png, &header, NULL);
        return CI_STATUS_OK;
    }

    size_t row_bytes = (size_t)width * 4;
    if (width == 0 || height == 0 || pixel_bytes / row_bytes != height || pixel_bytes % row_bytes != 0) {
        snprintf(info->message, sizeof info->message, "the pixel buffer does not hold %ux%u RGBA pixels", width, height);
        png_destroy_read_struct(&png, &header, NULL);
        return CI_STATUS_BAD_ARGUMENT;
    }
    // Everything to 8-bit RGBA, samples as stored.
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, header);
    if (png_get_rowbytes(png, header) != row_bytes) {
        snprintf(info->message, sizeof info->message, "rows of %zu bytes after expansion, not %zu",
                 (size_t)png_get_rowbytes(png, header), row_bytes);
        png_destroy_read_struct(&png, &header, NULL);
        return CI_STATUS_UNSUPPORTED;
    }
    reading.rows = malloc(sizeof(png_bytep) * height);
    if (!reading.rows) {
        png_destroy_read_struct(&png, &header, NULL);
        return CI_STATUS_OUT_OF_MEMORY;
    }
    for (png_uint_32 y = 0; y < height; y++) reading.rows[y] = pixels + (size_t)y * row_bytes;
    png_read_image(png, reading.rows);
    // The chunks after the image (text, time) are not needed; a file cut off after its image data decodes.
    free(reading.rows);
    reading.rows = NULL;
    png_destroy_read_struct(&png, &header, NULL);
    return CI_STATUS_OK;
}

ci_status ci_png_read_info(const uint8_t *bytes, size_t count, ci_image_info *info) {
    return read_png(bytes, count, NULL, 0, info);
}

ci_status ci_png_decode_rgba(const uint8_t *bytes, size_t count, uint8_t *pixels, size_t pixel_bytes,
                             ci_image_info *info) {
    if (!pixels) return CI_STATUS_BAD_ARGUMENT;
    return read_png(bytes, count, pixels, pixel_bytes, info);
}

#endif
