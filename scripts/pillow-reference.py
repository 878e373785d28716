"""Writes CourierImage's test images and Pillow's decoding of each (see scripts/pillow-reference)."""

import io
import json
import os
import random
import sys

import png as pypng
from PIL import Image, ImageOps

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

    def add(self, name, data, reference, tolerance=0, minimum=None, note=""):
        file = name + (".jpg" if data[:2] == b"\xff\xd8" else ".png")
        with open(os.path.join(self.folder, file), "wb") as handle:
            handle.write(data)
        with open(os.path.join(self.folder, name + ".rgba"), "wb") as handle:
            handle.write(reference.tobytes() if hasattr(reference, "tobytes") else reference[2])
        width, height = reference.size if hasattr(reference, "size") else reference[:2]
        self.entries.append({"name": name, "file": file, "reference": name + ".rgba", "width": width,
                             "height": height, "tolerance": tolerance, "minimum": minimum, "note": note})

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


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "generate":
        sys.exit("usage: pillow-reference generate DIR")
    folder = sys.argv[2]
    os.makedirs(folder, exist_ok=True)
    writer = Writer(folder)
    jpegs(writer)
    pngs(writer)
    writer.finish()
    print(f"{len(writer.entries)} images with Pillow {Image.__version__}")


main()
