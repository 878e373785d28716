"""Writes CourierImage's test images and Pillow's decoding of each (see scripts/pillow-reference)."""

import io
import json
import os
import random
import sys

import png as pypng
from PIL import Image, ImageFile, ImageOps

WIDTH, HEIGHT = 97, 61  # odd sizes: partial JPEG blocks and PNG bytes that end mid-row


def content(mode, width=WIDTH, height=HEIGHT, seed=1):
    """Gradients with noise: every channel varies, left differs from right and top from bottom (so a wrong turn or
    a swapped channel shows)."""
    rng = random.Random(seed)
    image = Image.new("RGBA", (width, height))
    pixels = []
    for y in range(height):
        for x in range(width):
            r = (x * 255) // max(width - 1, 1)
            g = (y * 255) // max(height - 1, 1)
            b = ((x + 2 * y) * 3 + rng.randrange(24)) % 256
            a = 255 if (x // 8 + y // 8) % 3 else (x * 4) % 256
            pixels.append((r, g, b, a))
    image.putdata(pixels)
    if mode == "RGBA":
        return image
    if mode == "CMYK":
        # Pillow's RGB to CMYK leaves K at zero; real prints use black ink, so K varies here too.
        c, m, y, _ = image.split()
        k = Image.new("L", (width, height))
        k.putdata([((x // 4) * 37 + y * 5) % 256 for y in range(height) for x in range(width)])
        return Image.merge("CMYK", (c, m, y, k))
    return image.convert(mode)


def shown(image):
    """What a browser shows: EXIF orientation applied, as RGBA."""
    return ImageOps.exif_transpose(image).convert("RGBA")


class Writer:
    def __init__(self, folder):
        self.folder = folder
        self.entries = []

    def add(self, name, data, reference, tolerance=0, minimum=None, note="", durations=None, resize=None):
        """`reference`: an image, a (width, height, bytes) triple, or for an animation a list of frame images
        (their RGBA written one after the other) with `durations` in milliseconds."""
        extension = {b"\xff\xd8": ".jpg", b"\x89P": ".png", b"GI": ".gif", b"RI": ".webp"}[data[:2]]
        file = name + extension
        with open(os.path.join(self.folder, file), "wb") as handle:
            handle.write(data)
        frames = reference if isinstance(reference, list) else [reference]
        with open(os.path.join(self.folder, name + ".rgba"), "wb") as handle:
            for frame in frames:
                handle.write(frame.tobytes() if hasattr(frame, "tobytes") else frame[2])
        width, height = frames[0].size if hasattr(frames[0], "size") else frames[0][:2]
        self.entries.append({"name": name, "file": file, "reference": name + ".rgba", "width": width,
                             "height": height, "tolerance": tolerance, "minimum": minimum, "note": note,
                             "frames": len(frames), "durations": durations, "resize": resize})

    def finish(self):
        with open(os.path.join(self.folder, "manifest.json"), "w") as handle:
            json.dump(self.entries, handle, indent=1)


def encoded(image, format, **options):
    buffer = io.BytesIO()
    image.save(buffer, format, **options)
    return buffer.getvalue()


def decoded(data):
    return Image.open(io.BytesIO(data))


def jpegs(writer):
    # JPEG decoders may differ by a level or two in the inverse DCT and upsampling; the tolerance says how much.
    rgb = content("RGB")
    for name, options in [("jpeg-baseline", {"quality": 92}), ("jpeg-444", {"quality": 92, "subsampling": 0}),
                          ("jpeg-progressive", {"quality": 90, "progressive": True}),
                          ("jpeg-low-quality", {"quality": 20})]:
        data = encoded(rgb, "JPEG", **options)
        writer.add(name, data, shown(decoded(data)), tolerance=2)
    for name, mode in [("jpeg-gray", "L"), ("jpeg-cmyk", "CMYK")]:
        data = encoded(content(mode), "JPEG", quality=92)
        writer.add(name, data, shown(decoded(data)), tolerance=2, note=decoded(data).mode)
    for orientation in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = orientation
        data = encoded(rgb, "JPEG", quality=92, exif=exif.tobytes())
        writer.add(f"jpeg-orientation-{orientation}", data, shown(decoded(data)), tolerance=2)
    # Scaled decoding: Pillow's draft() picks the same DCT scale (the smallest that still covers the size).
    large = content("RGB", 803, 509, seed=2)
    data = encoded(large, "JPEG", quality=90)
    for minimum in [(400, 250), (200, 120), (100, 60), (90, 70)]:
        image = decoded(data)
        image.draft("RGB", minimum)
        writer.add(f"jpeg-scaled-{minimum[0]}x{minimum[1]}", data, image.convert("RGBA"), tolerance=2, minimum=list(minimum))


def pngs(writer):
    rgba = content("RGBA")
    cases = [
        ("png-rgb8", content("RGB"), {}),
        ("png-rgba8", rgba, {}),
        ("png-gray8", content("L"), {}),
        ("png-gray-alpha8", content("LA"), {}),
        ("png-gray1", content("1"), {}),
        ("png-palette4", content("RGB").quantize(16), {"bits": 4}),
        ("png-palette8-transparent", content("RGB").quantize(200), {"transparency": 3}),
        ("png-gray8-transparent", content("L"), {"transparency": 128}),
        ("png-rgb8-transparent", content("RGB"), {"transparency": (255, 0, 0)}),
    ]
    for name, image, options in cases:
        data = encoded(image, "PNG", **options)
        writer.add(name, data, shown(decoded(data)))
    # pypng writes what Pillow cannot: 16-bit colour, and Adam7 interlacing at every depth. Pillow decodes the
    # 8-bit ones; for 16 bits the reference is each sample's high byte (Pillow's 8-bit modes clip instead).
    rng = random.Random(3)
    for name, depth, planes, interlace in [("png-interlaced-rgba8", 8, 4, True), ("png-interlaced-gray2", 2, 1, True),
                                           ("png-rgb16", 16, 3, False), ("png-interlaced-rgba16", 16, 4, True),
                                           ("png-gray16", 16, 1, False)]:
        top = (1 << depth) - 1
        rows = [[rng.randrange(top + 1) if (x + y) % 5 else (x * top) // (WIDTH - 1)
                 for x in range(WIDTH) for _ in range(planes)] for y in range(HEIGHT)]
        buffer = io.BytesIO()
        pypng.Writer(WIDTH, HEIGHT, greyscale=planes < 3, alpha=planes in (2, 4), bitdepth=depth,
                     interlace=interlace).write(buffer, rows)
        data = buffer.getvalue()
        if depth == 16:
            reference = bytearray()
            for row in rows:
                for x in range(WIDTH):
                    samples = [value >> 8 for value in row[x * planes:(x + 1) * planes]]
                    if planes == 1:
                        samples = samples * 3 + [255]
                    elif planes == 3:
                        samples = samples + [255]
                    reference.extend(samples)
            writer.add(name, data, (WIDTH, HEIGHT, bytes(reference)), note="16-bit: high bytes")
        else:
            writer.add(name, data, shown(decoded(data)))


def webps(writer):
    rgb, rgba = content("RGB"), content("RGBA")
    for name, image, options, tolerance in [("webp-lossy", rgb, {"quality": 90}, 2), ("webp-lossless", rgb, {"lossless": True}, 0),
                                            ("webp-lossy-alpha", rgba, {"quality": 90}, 2),
                                            ("webp-lossless-alpha", rgba, {"lossless": True}, 0)]:
        data = encoded(image, "WEBP", **options)
        writer.add(name, data, shown(decoded(data)), tolerance=tolerance)
    data, frames, durations = animation("WEBP", lossless=True)
    writer.add("webp-animated", data, frames, durations=durations, note="animated")


def gifs(writer):
    still = content("RGB").quantize(64)
    data = encoded(still, "GIF", interlace=False)
    writer.add("gif-still", data, shown(decoded(data)))
    data = encoded(still, "GIF", interlace=True)
    writer.add("gif-interlaced", data, shown(decoded(data)))
    data = encoded(still, "GIF", transparency=5)
    writer.add("gif-transparent", data, shown(decoded(data)))
    for disposal in range(4):
        data, frames, durations = animation("GIF", disposal=disposal, transparency=0)
        writer.add(f"gif-animated-disposal-{disposal}", data, frames, durations=durations, note=f"disposal {disposal}")


def animation(format, **options):
    """Four frames of different sizes: a full first frame, then smaller rectangles moving over it, each with its own
    duration. Pillow crops frames to what changed, so later frames are partial rectangles in the file."""
    base = content("RGB", seed=4)
    frames = [base]
    for step in range(1, 4):
        frame = frames[-1].copy()
        box = (10 * step, 5 * step, 10 * step + 30, 5 * step + 20)
        frame.paste((60 * step, 255 - 60 * step, 90), box)
        frames.append(frame)
    if format == "GIF":
        frames = [frame.quantize(32) for frame in frames]
    durations = [100, 40, 250, 70]
    buffer = io.BytesIO()
    frames[0].save(buffer, format, save_all=True, append_images=frames[1:], duration=durations, loop=0, **options)
    data = buffer.getvalue()
    shown_frames, shown_durations = [], []
    image = decoded(data)
    for index in range(getattr(image, "n_frames", 1)):
        image.seek(index)
        shown_frames.append(image.convert("RGBA"))
        shown_durations.append(image.info.get("duration", 0))
    return data, shown_frames, shown_durations


def resizes(writer):
    # Pillow's box filter averages exactly the pixels a target pixel covers when the factor is a whole number: what
    # ResizeProcessor's area averaging does at any factor.
    source = content("RGB", 96, 60, seed=5)
    data = encoded(source, "PNG")
    for factor in (2, 3, 4, 6):
        size = (96 // factor, 60 // factor)
        writer.add(f"resize-box-{size[0]}x{size[1]}", data, source.resize(size, Image.BOX).convert("RGBA"), tolerance=1,
                   resize=list(size))


def previews(folder):
    """Progressive JPEGs cut where each scan ends (at the next scan's SOS marker), and Pillow's decoding of each cut
    (Pillow decodes the scans a truncated file holds when LOAD_TRUNCATED_IMAGES is set; a file cut inside a marker
    segment or a scan it shows as black, so those cuts have no reference): what a preview of the bytes so far shows.
    Each entry also lists where the file's scans start. In previews.json."""
    entries = []
    ImageFile.LOAD_TRUNCATED_IMAGES = True
    try:
        for name, orientation in [("preview", 1), ("preview-orientation-6", 6)]:
            exif = Image.Exif()
            exif[0x0112] = orientation
            data = encoded(content("RGB", 160, 100, seed=3), "JPEG", quality=90, progressive=True, exif=exif.tobytes())
            with open(os.path.join(folder, name + ".jpg"), "wb") as handle:
                handle.write(data)
            # Pillow writes no SOS bytes inside other segments or entropy-coded data (0xFF is stuffed there).
            starts = []
            index = data.find(b"\xff\xda")
            while index >= 0:
                starts.append(index)
                index = data.find(b"\xff\xda", index + 2)
            for cut in starts[1:] + [len(data)]:
                reference = f"{name}-{cut}.rgba"
                with open(os.path.join(folder, reference), "wb") as handle:
                    handle.write(shown(decoded(data[:cut])).tobytes())
                entries.append({"name": f"{name}-{cut}", "file": name + ".jpg", "cut": cut, "scanStarts": starts,
                                "reference": reference})
    finally:
        ImageFile.LOAD_TRUNCATED_IMAGES = False
    with open(os.path.join(folder, "previews.json"), "w") as handle:
        json.dump(entries, handle, indent=1)
    return len(entries)


def noise(path, width, height, seed):
    """A PNG of random pixels (it does not compress: about 3 bytes a pixel), and its RGBA beside it."""
    rng = random.Random(seed)
    image = Image.frombytes("RGB", (width, height), bytes(rng.randrange(256) for _ in range(width * height * 3)))
    image.save(path, "PNG")
    with open(path + ".rgba", "wb") as handle:
        handle.write(image.convert("RGBA").tobytes())


def progressive(path, width, height, seed):
    """A progressive JPEG of noise over a gradient (it compresses little, so it takes a while to arrive), and
    Pillow's RGBA for it beside it."""
    random.seed(seed)
    size = (width, height)
    channels = [Image.effect_noise(size, 40 + seed % 20), Image.linear_gradient("L").resize(size), Image.effect_noise(size, 25)]
    data = encoded(Image.merge("RGB", channels), "JPEG", quality=95, progressive=True)
    with open(path, "wb") as handle:
        handle.write(data)
    with open(path + ".rgba", "wb") as handle:
        handle.write(shown(decoded(data)).tobytes())


def main():
    if len(sys.argv) == 6 and sys.argv[1] in ("noise", "progressive"):
        make = noise if sys.argv[1] == "noise" else progressive
        make(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
        return
    if len(sys.argv) != 3 or sys.argv[1] != "generate":
        sys.exit("usage: pillow-reference generate DIR | noise FILE WIDTH HEIGHT SEED | progressive FILE WIDTH HEIGHT SEED")
    folder = sys.argv[2]
    os.makedirs(folder, exist_ok=True)
    writer = Writer(folder)
    jpegs(writer)
    pngs(writer)
    webps(writer)
    gifs(writer)
    resizes(writer)
    writer.finish()
    cuts = previews(folder)
    print(f"{len(writer.entries)} images and {cuts} preview cuts with Pillow {Image.__version__}")


main()
