// Decoding figures for scripts/bench-images, one JSON line each (single-threaded, wall clock):
//   bench-image decode DIR ROUNDS                 # every .jpg/.png/.webp in DIR decoded ROUNDS times: images/s
//   bench-image thumbnail FILE SIDE ROUNDS        # a JPEG to a SIDE × SIDE thumbnail: DCT-scaled + resize vs full + resize
//   bench-image download BASE CA COUNT SIDE ACTIVE  # COUNT JPEGs (BASE/N.jpg, over TLS trusting CA) through ImageDownloader
//                                                 # to SIDE-pixel thumbnails, ACTIVE downloads at a time: images/s, CPU, peak RSS
import Courier
import CourierImage
import Foundation

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "decode":
    guard arguments.count == 4, let rounds = Int(arguments[3]) else { fail("usage: bench-image decode DIR ROUNDS") }
    let folder = URL(fileURLWithPath: arguments[2])
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { [".jpg", ".png", ".webp"].contains(where: $0.hasSuffix) }.sorted()
    let files = names.compactMap { try? Data(contentsOf: folder.appendingPathComponent($0)) }
    let decoder = ImageDecoder()
    var pixels = 0
    let started = ContinuousClock.now
    for _ in 0..<rounds {
        for data in files {
            guard let image = try? decoder.decode(data) else { fail("a file did not decode") }
            pixels &+= image.width * image.height
        }
    }
    let elapsed = seconds(ContinuousClock.now - started)
    let count = rounds * files.count
    print("{\"images\":\(count),\"seconds\":\(elapsed),\"per_second\":\(Double(count) / elapsed),\"pixels\":\(pixels)}")
case "thumbnail":
    guard arguments.count == 5, let side = Int(arguments[3]), let rounds = Int(arguments[4]),
          let data = try? Data(contentsOf: URL(fileURLWithPath: arguments[2])) else { fail("usage: bench-image thumbnail FILE SIDE ROUNDS") }
    let target = ImageSize(width: side, height: side)
    let resize = ResizeProcessor(size: target, contentMode: .aspectFit)
    func time(_ options: ImageDecodingOptions) -> Double {
        let decoder = ImageDecoder(options: options)
        let started = ContinuousClock.now
        for _ in 0..<rounds {
            guard let image = try? decoder.decode(data) else { fail("the file did not decode") }
            _ = resize.process(image)
        }
        return seconds(ContinuousClock.now - started) / Double(rounds)
    }
    let full = time(ImageDecodingOptions())
    let scaled = time(ImageDecodingOptions(minimumSize: target))
    print("{\"full_seconds\":\(full),\"scaled_seconds\":\(scaled),\"speedup\":\(full / scaled)}")
case "download":
    guard arguments.count == 7, let base = URL(string: arguments[2]), let count = Int(arguments[4]), let side = Int(arguments[5]),
          let active = Int(arguments[6]) else { fail("usage: bench-image download BASE CA COUNT SIDE ACTIVE") }
    do {
        print(try await ThumbnailDownloads.run(
            base: base, certificateAuthority: URL(fileURLWithPath: arguments[3]), count: count, side: side, active: active))
    } catch {
        fail("the downloads failed: \(error)")
    }
default:
    fail("usage: bench-image decode DIR ROUNDS | thumbnail FILE SIDE ROUNDS | download BASE CA COUNT SIDE ACTIVE")
}
