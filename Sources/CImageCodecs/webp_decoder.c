// libwebp (decode and demux) for still and animated WebP: see CImageCodecs.h.
#include "CImageCodecs.h"

// Linux only: Apple platforms decode through ImageIO, and these libraries are not there.
#if defined(__linux__) && defined(COURIER_SYSTEM_CODECS)
#include "animation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>

static ci_status status_for(VP8StatusCode code, ci_image_info *info) {
    switch (code) {
    case VP8_STATUS_OK: return CI_STATUS_OK;
    case VP8_STATUS_NOT_ENOUGH_DATA: return CI_STATUS_TRUNCATED;
    case VP8_STATUS_OUT_OF_MEMORY: return CI_STATUS_OUT_OF_MEMORY;
    case VP8_STATUS_UNSUPPORTED_FEATURE:
        snprintf(info->message, sizeof info->message, "a WebP feature libwebp does not decode");
        return CI_STATUS_UNSUPPORTED;
    case VP8_STATUS_INVALID_PARAM: return CI_STATUS_BAD_ARGUMENT;
    default:
        snprintf(info->message, sizeof info->message, "libwebp: bitstream error (status %d)", (int)code);
        return CI_STATUS_CORRUPT;
    }
}

ci_status ci_webp_read_info(const uint8_t *bytes, size_t count, ci_image_info *info) {
    if (!bytes || !info) return CI_STATUS_BAD_ARGUMENT;
    memset(info, 0, sizeof *info);
    WebPBitstreamFeatures features;
    ci_status status = status_for(WebPGetFeatures(bytes, count, &features), info);
    if (status != CI_STATUS_OK) return status;
    info->width = info->stored_width = (uint32_t)features.width;
    info->height = info->stored_height = (uint32_t)features.height;
    info->has_alpha = features.has_alpha;
    info->is_animated = features.has_animation;
    info->is_lossless = features.format == 2;
    info->color_model = CI_COLOR_RGB;
    info->bit_depth = 8;
    return CI_STATUS_OK;
}

ci_status ci_webp_decode_rgba(const uint8_t *bytes, size_t count, uint8_t *pixels, size_t pixel_bytes,
                              ci_image_info *info) {
    ci_status status = ci_webp_read_info(bytes, count, info);
    if (status != CI_STATUS_OK) return status;
    size_t row_bytes = (size_t)info->width * 4;
    if (!pixels || info->width == 0 || info->height == 0 || pixel_bytes / row_bytes != info->height || pixel_bytes % row_bytes != 0) {
        snprintf(info->message, sizeof info->message, "the pixel buffer does not hold %ux%u RGBA pixels", info->width, info->height);
        return CI_STATUS_BAD_ARGUMENT;
    }
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return CI_STATUS_UNSUPPORTED;
    // Straight alpha (MODE_RGBA; MODE_rgbA would premultiply), into the caller's buffer.
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)row_bytes;
    config.output.u.RGBA.size = pixel_bytes;
    status = status_for(WebPDecode(bytes, count, &config), info);
    WebPFreeDecBuffer(&config.output);
    if (status == CI_STATUS_TRUNCATED) snprintf(info->message, sizeof info->message, "the data ends before the image does");
    return status;
}

ci_animation *ci_animation_open_webp(const uint8_t *bytes, size_t count, ci_image_info *info, ci_status *status) {
    if (!bytes || !info || !status) return NULL;
    *status = ci_webp_read_info(bytes, count, info);
    if (*status != CI_STATUS_OK) return NULL;
    WebPData data = {bytes, count};
    // libwebp's animation decoder wants the whole file: a partial one is told apart from a broken one here.
    WebPDemuxState state;
    WebPDemuxer *demuxer = WebPDemuxPartial(&data, &state);
    WebPDemuxDelete(demuxer);
    if (state != WEBP_DEMUX_DONE) {
        *status = state == WEBP_DEMUX_PARSE_ERROR ? CI_STATUS_CORRUPT : CI_STATUS_TRUNCATED;
        snprintf(info->message, sizeof info->message, state == WEBP_DEMUX_PARSE_ERROR ? "the WebP container does not parse" : "the data ends before the image does");
        return NULL;
    }
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        *status = CI_STATUS_UNSUPPORTED;
        return NULL;
    }
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    ci_animation *animation = calloc(1, sizeof *animation);
    if (!animation) {
        *status = CI_STATUS_OUT_OF_MEMORY;
        return NULL;
    }
    animation->kind = CI_ANIMATION_WEBP;
    animation->webp = WebPAnimDecoderNew(&data, &options);
    WebPAnimInfo animation_info;
    if (!animation->webp || !WebPAnimDecoderGetInfo(animation->webp, &animation_info)) {
        snprintf(info->message, sizeof info->message, "libwebp could not read the animation's frames");
        *status = CI_STATUS_CORRUPT;
        ci_animation_close(animation);
        return NULL;
    }
    animation->width = info->width = animation_info.canvas_width;
    animation->height = info->height = animation_info.canvas_height;
    info->is_animated = 1;
    *status = CI_STATUS_OK;
    return animation;
}

static ci_status webp_next(ci_animation *animation, uint8_t *pixels, uint32_t *duration_ms, ci_image_info *info) {
    if (!WebPAnimDecoderHasMoreFrames(animation->webp)) return CI_STATUS_END;
    uint8_t *canvas = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(animation->webp, &canvas, &timestamp) || !canvas) {
        snprintf(info->message, sizeof info->message, "libwebp could not decode a frame");
        return CI_STATUS_CORRUPT;
    }
    memcpy(pixels, canvas, (size_t)animation->width * animation->height * 4);
    *duration_ms = timestamp > animation->last_timestamp ? (uint32_t)(timestamp - animation->last_timestamp) : 0;
    animation->last_timestamp = timestamp;
    return CI_STATUS_OK;
}

ci_status ci_animation_next(ci_animation *animation, uint8_t *pixels, size_t pixel_bytes, uint32_t *duration_ms,
                            ci_image_info *info) {
    if (!animation || !pixels || !duration_ms || !info) return CI_STATUS_BAD_ARGUMENT;
    info->message[0] = 0;
    if (pixel_bytes != (size_t)animation->width * animation->height * 4) return CI_STATUS_BAD_ARGUMENT;
    *duration_ms = 0;
    return animation->kind == CI_ANIMATION_WEBP ? webp_next(animation, pixels, duration_ms, info)
                                               : ci_gif_next(animation, pixels, duration_ms, info);
}

void ci_animation_close(ci_animation *animation) {
    if (!animation) return;
    if (animation->webp) WebPAnimDecoderDelete(animation->webp);
    ci_gif_close(animation);
    free(animation);
}
#endif
