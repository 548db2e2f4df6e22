/**
 * `/favicon.ico`: browsers ask for it on every page (Swagger UI, the playground), and a 404 there
 * looks like a broken server in the network tab. A 16×16 icon drawn here (an uncompressed 32-bit
 * ICO: no image file to ship, no dependency), cached for a day.
 */
import { Router } from "express";

const SIZE = 16;

/** A rounded square in the studio's teal with a white "play" triangle. */
function pixel(x: number, y: number): [number, number, number, number] {
  const corner = (x < 2 || x > 13) && (y < 2 || y > 13) && Math.hypot(Math.min(x, 15 - x) - 2, Math.min(y, 15 - y) - 2) > 2;
  if (corner) return [0, 0, 0, 0];
  const inTriangle = x >= 6 && x <= 11 && Math.abs(y - 7.5) <= (11 - x) * 0.75 + 0.5;
  return inTriangle ? [255, 255, 255, 255] : [0x2a, 0x9d, 0x8f, 255];
}

export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  // BMP rows go bottom-up, each pixel BGRA.
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b, a] = pixel(x, SIZE - 1 - y);
      pixels.set([b, g, r, a], (y * SIZE + x) * 4);
    }
  }
  const andMask = Buffer.alloc(SIZE * 4); // 1 bit per pixel, rows padded to 4 bytes; alpha decides
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8); // colour and mask, stacked
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + andMask.length, 20);
  const image = Buffer.concat([info, pixels, andMask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}

export function faviconRoutes(): Router {
  const router = Router();
  const icon = faviconIco();
  router.get("/favicon.ico", (_req, res) => {
    res.set("Cache-Control", "public, max-age=86400").type("image/x-icon").send(icon);
  });
  return router;
}
