// libjpeg-turbo behind a setjmp: see CImageCodecs.h.
// Linux only: Apple platforms decode through ImageIO, and these libraries are not there.
#if defined(__linux__) && defined(COURIER_SYSTEM_CODECS)
#include "CImageCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    ci_image_info *info;
    /// The code of a fatal error (JERR_*), so that running out of memory is told apart.
    int fatal_code;
    /// Whether libjpeg reached the end of the data before the image's end (its "premature end" warning).
    int saw_end_of_data;
} jpeg_failure;

static void copy_message(j_common_ptr decoder, ci_image_info *info) {
    char text[JMSG_LENGTH_MAX];
    (*decoder->err->format_message)(decoder, text);
    snprintf(info->message, sizeof info->message, "%s", text);
}

// libjpeg's fatal errors: keep the words, jump back to the setjmp in the calling function.
static void jump_out(j_common_ptr decoder) {
    jpeg_failure *failure = (jpeg_failure *)decoder->err;
    failure->fatal_code = decoder->err->msg_code;
    copy_message(decoder, failure->info);
    longjmp(failure->jump, 1);
}

// Warnings (level -1) and trace messages: never printed. The end of the data is remembered; other warnings
// ("corrupt data: extraneous bytes") are what many cameras write, and decode as browsers show them.
static void note_message(j_common_ptr decoder, int level) {
    jpeg_failure *failure = (jpeg_failure *)decoder->err;
    if (level < 0) {
        decoder->err->num_warnings++;
        if (decoder->err->msg_code == JWRN_JPEG_EOF) failure->saw_end_of_data = 1;
    }
}

static ci_status status_for(const jpeg_failure *failure) {
    switch (failure->fatal_code) {
    case JERR_OUT_OF_MEMORY: return CI_STATUS_OUT_OF_MEMORY;
    case JERR_INPUT_EMPTY: return CI_STATUS_TRUNCATED;
    case JERR_CONVERSION_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_BAD_PRECISION: return CI_STATUS_UNSUPPORTED;
    default: return CI_STATUS_CORRUPT;
    }
}

// Sends libjpeg's errors and warnings to `failure` (the caller then takes its setjmp: it cannot be taken here, since
// a jump may only return into a function that is still running).
static void route_errors(struct jpeg_decompress_struct *decoder, jpeg_failure *failure, ci_image_info *info) {
    memset(failure, 0, sizeof *failure);
    failure->info = info;
    decoder->err = jpeg_std_error(&failure->manager);
    failure->manager.error_exit = jump_out;
    failure->manager.emit_message = note_message;
}

static int valid_scale(unsigned denominator) {
    return denominator == 1 || denominator == 2 || denominator == 4 || denominator == 8;
}

// Reads the header and sets the output's colour space and scale; fills `info`. Called under the caller's setjmp.
static ci_status prepare(struct jpeg_decompress_struct *decoder, const uint8_t *bytes, size_t count,
                         unsigned scale_denominator, ci_image_info *info) {
    jpeg_mem_src(decoder, bytes, (unsigned long)count);
    if (jpeg_read_header(decoder, TRUE) != JPEG_HEADER_OK) {
        snprintf(info->message, sizeof info->message, "no image in the data (tables only)");
        return CI_STATUS_CORRUPT;
    }
    info->stored_width = decoder->image_width;
    info->stored_height = decoder->image_height;
    info->bit_depth = decoder->data_precision;
    info->is_progressive = decoder->progressive_mode ? 1 : 0;
    info->has_alpha = 0;
    switch (decoder->jpeg_color_space) {
    case JCS_GRAYSCALE:
        info->color_model = CI_COLOR_GRAY;
        decoder->out_color_space = JCS_EXT_RGBA;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        info->color_model = CI_COLOR_CMYK;
        decoder->out_color_space = JCS_CMYK;
        break;
    default:
        info->color_model = CI_COLOR_RGB;
        decoder->out_color_space = JCS_EXT_RGBA;
        break;
    }
    decoder->scale_num = 1;
    decoder->scale_denom = scale_denominator;
    jpeg_calc_output_dimensions(decoder);
    info->width = decoder->output_width;
    info->height = decoder->output_height;
    return CI_STATUS_OK;
}

ci_status ci_jpeg_read_info(const uint8_t *bytes, size_t count, unsigned scale_denominator, ci_image_info *info) {
    if (!bytes || !info) return CI_STATUS_BAD_ARGUMENT;
    memset(info, 0, sizeof *info);
    if (!valid_scale(scale_denominator)) {
        snprintf(info->message, sizeof info->message, "scale 1/%u is not 1/1, 1/2, 1/4 or 1/8", scale_denominator);
        return CI_STATUS_BAD_ARGUMENT;
    }
    struct jpeg_decompress_struct decoder;
    jpeg_failure failure;
    route_errors(&decoder, &failure, info);
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&decoder);
        return failure.saw_end_of_data ? CI_STATUS_TRUNCATED : status_for(&failure);
    }
    jpeg_create_decompress(&decoder);
    ci_status status = prepare(&decoder, bytes, count, scale_denominator, info);
    if (status == CI_STATUS_OK && failure.saw_end_of_data) {
        snprintf(info->message, sizeof info->message, "the data ends inside the header");
        status = CI_STATUS_TRUNCATED;
    }
    jpeg_destroy_decompress(&decoder);
    return status;
}

// Adobe's CMYK (inverted) or plain CMYK to RGBA, in place: both are four bytes a pixel.
static void cmyk_to_rgba(uint8_t *row, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++) {
        uint8_t *pixel = row + (size_t)x * 4;
        unsigned c = pixel[0], m = pixel[1], y = pixel[2], k = pixel[3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        // Here each value is 255 minus the ink: R = (255 - C)(255 - K) / 255, rounded.
        pixel[0] = (uint8_t)((c * k + 127) / 255);
        pixel[1] = (uint8_t)((m * k + 127) / 255);
        pixel[2] = (uint8_t)((y * k + 127) / 255);
        pixel[3] = 255;
    }
}

ci_status ci_jpeg_decode_rgba(const uint8_t *bytes, size_t count, unsigned scale_denominator, int allow_truncated,
                              uint8_t *pixels, size_t pixel_bytes, ci_image_info *info) {
    if (!bytes || !pixels || !info) return CI_STATUS_BAD_ARGUMENT;
    memset(info, 0, sizeof *info);
    if (!valid_scale(scale_denominator)) return CI_STATUS_BAD_ARGUMENT;
    struct jpeg_decompress_struct decoder;
    jpeg_failure failure;
    route_errors(&decoder, &failure, info);
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&decoder);
        return failure.saw_end_of_data ? CI_STATUS_TRUNCATED : status_for(&failure);
    }
    jpeg_create_decompress(&decoder);
    ci_status status = prepare(&decoder, bytes, count, scale_denominator, info);
    if (status != CI_STATUS_OK) {
        jpeg_destroy_decompress(&decoder);
        return status;
    }
    size_t row_bytes = (size_t)info->width * 4;
    if (info->width == 0 || info->height == 0 || pixel_bytes / row_bytes != info->height || pixel_bytes % row_bytes != 0) {
        snprintf(info->message, sizeof info->message, "the pixel buffer does not hold %ux%u RGBA pixels", info->width, info->height);
        jpeg_destroy_decompress(&decoder);
        return CI_STATUS_BAD_ARGUMENT;
    }
    int inverted = decoder.saw_Adobe_marker;
    jpeg_start_decompress(&decoder);
    if (decoder.output_components != 4) {
        snprintf(info->message, sizeof info->message, "%d output components", decoder.output_components);
        jpeg_destroy_decompress(&decoder);
        return CI_STATUS_UNSUPPORTED;
    }
    while (decoder.output_scanline < decoder.output_height) {
        JSAMPROW row = pixels + (size_t)decoder.output_scanline * row_bytes;
        if (jpeg_read_scanlines(&decoder, &row, 1) != 1) break;
        if (info->color_model == CI_COLOR_CMYK) cmyk_to_rgba(row, decoder.output_width, inverted);
    }
    if (failure.saw_end_of_data) {
        info->was_truncated = 1;
        if (!allow_truncated) {
            snprintf(info->message, sizeof info->message, "the data ends before the image does");
            jpeg_destroy_decompress(&decoder);
            return CI_STATUS_TRUNCATED;
        }
    }
    // The end of the image is read only to hear of a truncation; its errors no longer matter.
    jpeg_abort_decompress(&decoder);
    jpeg_destroy_decompress(&decoder);
    return CI_STATUS_OK;
}

#endif
