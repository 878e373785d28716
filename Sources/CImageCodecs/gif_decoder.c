// giflib for GIF, its frames composed on the canvas as browsers show them: see CImageCodecs.h.
#include "CImageCodecs.h"

// Linux only: Apple platforms decode through ImageIO, and these libraries are not there.
#if defined(__linux__) && defined(COURIER_SYSTEM_CODECS)
#include "animation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_memory(GifFileType *gif, GifByteType *destination, int length) {
    ci_memory_reader *reader = (ci_memory_reader *)gif->UserData;
    size_t wanted = length < 0 ? 0 : (size_t)length;
    size_t available = reader->count - reader->offset;
    if (wanted > available) wanted = available;
    memcpy(destination, reader->bytes + reader->offset, wanted);
    reader->offset += wanted;
    return (int)wanted;
}

// giflib's error as a status: a read past the end of the data is a truncation.
static ci_status failure(int code, const ci_memory_reader *reader, ci_image_info *info) {
    if (code == D_GIF_ERR_READ_FAILED || (reader && reader->offset >= reader->count)) {
        snprintf(info->message, sizeof info->message, "the data ends before the image does");
        return CI_STATUS_TRUNCATED;
    }
    if (code == D_GIF_ERR_NOT_ENOUGH_MEM) return CI_STATUS_OUT_OF_MEMORY;
    const char *words = GifErrorString(code);
    snprintf(info->message, sizeof info->message, "giflib: %s", words ? words : "unknown error");
    return CI_STATUS_CORRUPT;
}

static GifFileType *open_gif(ci_memory_reader *reader, ci_image_info *info, ci_status *status) {
    int error = 0;
    GifFileType *gif = DGifOpen(reader, read_memory, &error);
    if (!gif) {
        *status = failure(error, reader, info);
        return NULL;
    }
    info->width = info->stored_width = (uint32_t)(gif->SWidth > 0 ? gif->SWidth : 0);
    info->height = info->stored_height = (uint32_t)(gif->SHeight > 0 ? gif->SHeight : 0);
    info->color_model = CI_COLOR_PALETTE;
    info->bit_depth = 8;
    info->is_animated = 1;
    *status = CI_STATUS_OK;
    return gif;
}

ci_status ci_gif_read_info(const uint8_t *bytes, size_t count, ci_image_info *info) {
    if (!bytes || !info) return CI_STATUS_BAD_ARGUMENT;
    memset(info, 0, sizeof *info);
    ci_memory_reader reader = {bytes, count, 0};
    ci_status status;
    GifFileType *gif = open_gif(&reader, info, &status);
    if (gif) DGifCloseFile(gif, NULL);
    return status;
}

ci_animation *ci_animation_open_gif(const uint8_t *bytes, size_t count, uint64_t max_frame_pixels, ci_image_info *info,
                                    ci_status *status) {
    if (!bytes || !info || !status) return NULL;
    memset(info, 0, sizeof *info);
    ci_animation *animation = calloc(1, sizeof *animation);
    if (!animation) {
        *status = CI_STATUS_OUT_OF_MEMORY;
        return NULL;
    }
    animation->kind = CI_ANIMATION_GIF;
    animation->reader = (ci_memory_reader){bytes, count, 0};
    animation->max_frame_pixels = max_frame_pixels;
    animation->gif = open_gif(&animation->reader, info, status);
    if (!animation->gif) {
        ci_animation_close(animation);
        return NULL;
    }
    if (info->width == 0 || info->height == 0) {
        snprintf(info->message, sizeof info->message, "the logical screen is %ux%u", info->width, info->height);
        *status = CI_STATUS_CORRUPT;
        ci_animation_close(animation);
        return NULL;
    }
    animation->width = info->width;
    animation->height = info->height;
    // Transparent to start with, as browsers draw the first frame.
    animation->canvas = calloc((size_t)info->width * info->height, 4);
    if (!animation->canvas) {
        *status = CI_STATUS_OUT_OF_MEMORY;
        ci_animation_close(animation);
        return NULL;
    }
    return animation;
}

// Clears the part of a rectangle inside the canvas to transparent.
static void clear_rectangle(ci_animation *animation, int left, int top, int width, int height) {
    for (int y = top; y < top + height && y < (int)animation->height; y++) {
        if (y < 0) continue;
        int start = left < 0 ? 0 : left;
        int end = left + width < (int)animation->width ? left + width : (int)animation->width;
        if (start < end) memset(animation->canvas + ((size_t)y * animation->width + (size_t)start) * 4, 0, (size_t)(end - start) * 4);
    }
}

// Reads one frame's rows (in interlaced order when asked) and draws the opaque ones inside the canvas.
static ci_status draw_frame(ci_animation *animation, const ColorMapObject *colors, int transparent, ci_image_info *info) {
    GifFileType *gif = animation->gif;
    const GifImageDesc *frame = &gif->Image;
    GifPixelType *line = realloc(animation->line, (size_t)frame->Width);
    if (!line) return CI_STATUS_OUT_OF_MEMORY;
    animation->line = line;
    static const int starts[] = {0, 4, 2, 1}, steps[] = {8, 8, 4, 2};
    int passes = frame->Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        int start = frame->Interlace ? starts[pass] : 0, step = frame->Interlace ? steps[pass] : 1;
        for (int row = start; row < frame->Height; row += step) {
            if (DGifGetLine(gif, line, frame->Width) == GIF_ERROR) return failure(gif->Error, &animation->reader, info);
            int y = frame->Top + row;
            if (y < 0 || y >= (int)animation->height) continue;
            for (int x = 0; x < frame->Width; x++) {
                int column = frame->Left + x;
                if (column < 0 || column >= (int)animation->width) continue;
                int index = line[x];
                if (index == transparent) continue;
                uint8_t *pixel = animation->canvas + ((size_t)y * animation->width + (size_t)column) * 4;
                // An index past the colour table is black, as Pillow and browsers draw it.
                GifColorType color = index < colors->ColorCount ? colors->Colors[index] : (GifColorType){0, 0, 0};
                pixel[0] = color.Red;
                pixel[1] = color.Green;
                pixel[2] = color.Blue;
                pixel[3] = 255;
            }
        }
    }
    return CI_STATUS_OK;
}

ci_status ci_gif_next(ci_animation *animation, uint8_t *pixels, uint32_t *duration_ms, ci_image_info *info) {
    GifFileType *gif = animation->gif;
    GraphicsControlBlock control = {DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR};
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) {
            // Many GIFs end without their trailer: at the end of the data, after a frame, that is the end.
            if (animation->reader.offset >= animation->reader.count && gif->ImageCount > 0) return CI_STATUS_END;
            return failure(gif->Error, &animation->reader, info);
        }
        switch (type) {
        case EXTENSION_RECORD_TYPE: {
            int code = 0;
            GifByteType *extension = NULL;
            if (DGifGetExtension(gif, &code, &extension) == GIF_ERROR) return failure(gif->Error, &animation->reader, info);
            if (code == GRAPHICS_EXT_FUNC_CODE && extension && extension[0] >= 4) {
                DGifExtensionToGCB(extension[0], extension + 1, &control);
            }
            while (extension) {
                if (DGifGetExtensionNext(gif, &extension) == GIF_ERROR) return failure(gif->Error, &animation->reader, info);
            }
            break;
        }
        case IMAGE_DESC_RECORD_TYPE: {
            if (DGifGetImageDesc(gif) == GIF_ERROR) return failure(gif->Error, &animation->reader, info);
            const GifImageDesc *frame = &gif->Image;
            if (frame->Width <= 0 || frame->Height <= 0) {
                snprintf(info->message, sizeof info->message, "a frame of %dx%d", frame->Width, frame->Height);
                return CI_STATUS_CORRUPT;
            }
            if ((uint64_t)frame->Width * (uint64_t)frame->Height > animation->max_frame_pixels) {
                snprintf(info->message, sizeof info->message, "a frame of %dx%d", frame->Width, frame->Height);
                return CI_STATUS_TOO_LARGE;
            }
            const ColorMapObject *colors = frame->ColorMap ? frame->ColorMap : gif->SColorMap;
            if (!colors) {
                snprintf(info->message, sizeof info->message, "a frame without a colour table");
                return CI_STATUS_CORRUPT;
            }
            // The last frame leaves as its disposal method says, before this one is drawn.
            if (animation->last_disposal == DISPOSE_BACKGROUND) {
                clear_rectangle(animation, animation->last_left, animation->last_top, animation->last_width, animation->last_height);
            } else if (animation->last_disposal == DISPOSE_PREVIOUS && animation->previous) {
                memcpy(animation->canvas, animation->previous, (size_t)animation->width * animation->height * 4);
            }
            if (control.DisposalMode == DISPOSE_PREVIOUS) {
                if (!animation->previous) animation->previous = malloc((size_t)animation->width * animation->height * 4);
                if (!animation->previous) return CI_STATUS_OUT_OF_MEMORY;
                memcpy(animation->previous, animation->canvas, (size_t)animation->width * animation->height * 4);
            }
            ci_status status = draw_frame(animation, colors, control.TransparentColor, info);
            if (status != CI_STATUS_OK) return status;
            animation->last_disposal = control.DisposalMode;
            animation->last_left = frame->Left;
            animation->last_top = frame->Top;
            animation->last_width = frame->Width;
            animation->last_height = frame->Height;
            memcpy(pixels, animation->canvas, (size_t)animation->width * animation->height * 4);
            *duration_ms = (uint32_t)(control.DelayTime > 0 ? control.DelayTime : 0) * 10;
            return CI_STATUS_OK;
        }
        case TERMINATE_RECORD_TYPE:
            return CI_STATUS_END;
        default:
            snprintf(info->message, sizeof info->message, "an unknown record (0x%02x)", (unsigned)type);
            return CI_STATUS_CORRUPT;
        }
    }
}

void ci_gif_close(ci_animation *animation) {
    if (animation->gif) DGifCloseFile(animation->gif, NULL);
    animation->gif = NULL;
    free(animation->canvas);
    free(animation->previous);
    free(animation->line);
    animation->canvas = animation->previous = NULL;
    animation->line = NULL;
}
#endif
